import type { Namespace } from "../../app/namespace.js";
import type { PathTemplate } from "./path-template.js";
import type { RestRoute } from "./rest-routes.js";

/** A route as served: under its `/sdk/...` template or the same template under `/cosmos/...`. */
export interface BoundRoute {
  route: RestRoute;
  path: PathTemplate;
  namespace: Namespace;
}

export type RouteMatch =
  | { kind: "found"; bound: BoundRoute; values: Map<string, string> }
  | { kind: "wrong-method" }
  | { kind: "none" };

/**
 * Finds the route for a request. Where several templates match one path, the one with more literal
 * segments wins (`/blocks/latest` over `/blocks/{height}`); among equals, the one declared last (as in
 * grpc-gateway, where a later registration shadows an earlier one).
 */
export class RouteTable {
  readonly bound: readonly BoundRoute[];

  constructor(routes: readonly RestRoute[]) {
    const bound: BoundRoute[] = [];
    for (const route of routes) {
      bound.push({ route, path: route.path, namespace: "sdk" });
      if (route.path.firstLiteral === "sdk")
        bound.push({ route, path: route.path.withPrefix("cosmos"), namespace: "cosmos" });
    }
    this.bound = bound;
  }

  match(method: string, pathname: string): RouteMatch {
    let best: { bound: BoundRoute; values: Map<string, string> } | null = null;
    let otherMethod = false;
    for (const b of this.bound) {
      const values = b.path.match(pathname);
      if (!values) continue;
      if (b.route.method !== method) {
        otherMethod = true;
        continue;
      }
      if (!best || b.path.literalCount >= best.bound.path.literalCount) best = { bound: b, values };
    }
    if (best) return { kind: "found", ...best };
    return otherMethod ? { kind: "wrong-method" } : { kind: "none" };
  }
}
