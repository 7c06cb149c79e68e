import { type Namespace, toNamespace } from "../../app/namespace.js";
import type { PathTemplate } from "./path-template.js";
import type { RestRoute } from "./rest-routes.js";

/** A route as served: under its `/sdk/...` template or the same template under `/cosmos/...`. */
export interface BoundRoute {
  route: RestRoute;
  path: PathTemplate;
  /** The query router path it calls (`/cosmos.bank.v1beta1.Query/AllBalances`). */
  grpcPath: string;
  /** Its name in metrics (`GET /sdk/bank/v1beta1/balances/{address}`). */
  label: string;
}

export type RouteMatch =
  | { kind: "found"; bound: BoundRoute; values: ReadonlyMap<string, string> }
  | { kind: "wrong-method" }
  | { kind: "none" };

const NO_VALUES: ReadonlyMap<string, string> = new Map();

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
  /**
   * Templates without variables by `METHOD path`: such a template has more literals than any other template
   * matching its path, so it wins outright (the last declared among duplicates, as the scan would pick).
   */
  private readonly exact = new Map<string, BoundRoute>();

  constructor(routes: readonly RestRoute[]) {
    const bound: BoundRoute[] = [];
    const bind = (route: RestRoute, path: PathTemplate, namespace: Namespace) =>
      bound.push({
        route,
        path,
        grpcPath: `/${toNamespace(route.service.typeName, namespace)}/${route.rpc.name}`,
        label: `${route.method} ${route.path.template}`,
      });
    for (const route of routes) {
      bind(route, route.path, "sdk");
      if (route.path.firstLiteral === "sdk") bind(route, route.path.withPrefix("cosmos"), "cosmos");
    }
    this.bound = bound;
    bound.forEach((b, i) => {
      const key = b.path.literalPrefix(2);
      if (key === undefined) this.unindexed.push(i);
      else this.byModule.set(key, [...(this.byModule.get(key) ?? []), i]);
      if (b.path.fields.length === 0) this.exact.set(`${b.route.method} ${b.path.template}`, b);
    });
  }

  match(method: string, pathname: string): RouteMatch {
    const exact = this.exact.get(`${method} ${pathname}`);
    if (exact) return { kind: "found", bound: exact, values: NO_VALUES };
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
