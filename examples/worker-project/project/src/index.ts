/**
 * hello-worker: `GET /` greets, `GET /sum?a=1&b=2` adds two numbers, anything else is a 404.
 */
export default {
  fetch(request: Request): Response {
    const url = new URL(request.url);
    if (url.pathname === "/") return new Response("Hello from a Worker built in a computer!\n");
    if (url.pathname === "/sum") {
      const a = Number(url.searchParams.get("a"));
      const b = Number(url.searchParams.get("b"));
      if (!Number.isFinite(a) || !Number.isFinite(b)) {
        return Response.json({ error: "a and b must be numbers" }, { status: 400 });
      }
      return Response.json({ sum: a + b });
    }
    return new Response("not found\n", { status: 404 });
  },
};
