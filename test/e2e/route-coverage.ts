/**
 * Which routes of the contract's table a suite called: a fetch that records the route name of
 * every request (matched against the table's path templates) and every error code answered.
 */
import { ROUTE_NAMES, ROUTES, type RouteName } from "@computer/sdk/contract";

function templateRegExp(template: string): RegExp {
  const source = template
    .split(/(\{\w+\})/)
    .map((part) => {
      if (part === "{path}") return ".*";
      if (/^\{\w+\}$/.test(part)) return "[^/]+";
      return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("");
  return new RegExp(`^${source}$`);
}

const MATCHERS = ROUTE_NAMES.map((name) => ({
  name,
  spec: ROUTES[name],
  re: templateRegExp(ROUTES[name].path),
}));

/** The route `method pathname` belongs to, if any (the most specific template wins). */
export function routeOf(method: string, pathname: string): RouteName | undefined {
  const candidates = MATCHERS.filter((m) => m.spec.method === method && m.re.test(pathname));
  candidates.sort((a, b) => b.spec.path.length - a.spec.path.length);
  return candidates[0]?.name;
}

/** A fetch that records what it carried. */
export interface RecordingFetch {
  fetch: typeof fetch;
  routes: Set<RouteName>;
  codes: Set<string>;
}

/** Wraps the global fetch, recording each request's route and each error answer's code. */
export function recordingFetch(): RecordingFetch {
  const routes = new Set<RouteName>();
  const codes = new Set<string>();
  const wrapped = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const route = routeOf(request.method, new URL(request.url).pathname);
    if (route !== undefined) routes.add(route);
    const res = await fetch(request);
    if (res.status >= 400 && request.method !== "HEAD") {
      const body = (await res
        .clone()
        .json()
        .catch(() => ({}))) as { error?: { code?: string } };
      if (body.error?.code !== undefined) codes.add(body.error.code);
    }
    return res;
  };
  return { fetch: wrapped as typeof fetch, routes, codes };
}
