/**
 * A path resolved lexically, before anything is looked up (the guests' filesystems, the js
 * module loader, git): empty and `.` names dropped, `..` takes the name before it (never above
 * `/`). Unlike the vfs's normalizePath it checks nothing: the call that uses the path does.
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
