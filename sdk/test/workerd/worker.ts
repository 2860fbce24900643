/** The Worker the sdk-workerd tests run in; it serves nothing itself. */
export default {
  fetch(): Response {
    return new Response("sdk-test", { status: 404 });
  },
};
