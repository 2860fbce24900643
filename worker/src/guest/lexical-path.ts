/**
 * A path resolved lexically, as the guests and the js module loader need it before anything
 * is looked up: empty and `.` names dropped, `..` takes the name before it (never above `/`).
 */

/** `path` as an absolute path of plain names ("/" for the root). */
export function lexicalPath(path: string): string {
  const names: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") names.pop();
    else names.push(part);
  }
  return `/${names.join("/")}`;
}
