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
  /** Routes by their first two literal segments (`cosmos/bank`), so a request tries its module's only. */
  private readonly byModule = new Map<string, number[]>();
  /** Routes whose first two segments are not both literal: tried for every request. */
  private readonly unindexed: number[] = [];

  constructor(routes: readonly RestRoute[]) {
    const bound: BoundRoute[] = [];
    for (const route of routes) {
      bound.push({ route, path: route.path, namespace: "sdk" });
      if (route.path.firstLiteral === "sdk")
        bound.push({ route, path: route.path.withPrefix("cosmos"), namespace: "cosmos" });
    }
    this.bound = bound;
    bound.forEach((b, i) => {
      const key = b.path.literalPrefix(2);
      if (key === undefined) this.unindexed.push(i);
      else this.byModule.set(key, [...(this.byModule.get(key) ?? []), i]);
    });
  }

  match(method: string, pathname: string): RouteMatch {
    if (!pathname.startsWith("/")) return { kind: "none" };
    const parts = pathname.slice(1).split("/");
    const indexed = this.byModule.get(`${parts[0]}/${parts[1]}`) ?? [];
    // Declaration order decides among equals, so the two candidate lists are merged back into it.
    const candidates = this.unindexed.length
      ? [...indexed, ...this.unindexed].sort((a, b) => a - b)
      : indexed;
    let best: { bound: BoundRoute; values: Map<string, string> } | null = null;
    let otherMethod = false;
    for (const i of candidates) {
      const b = this.bound[i];
      const values = b.path.matchSegments(parts);
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
