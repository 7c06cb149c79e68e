import { type DescMethod, type DescService, getOption, hasOption } from "@bufbuild/protobuf";
import { http } from "@chaind/proto/google/api/annotations_pb";
import type { HttpRule } from "@chaind/proto/google/api/http_pb";
import { PathTemplate } from "./path-template.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE" | "PATCH";

/** One REST route of the gateway, read from an RPC's `google.api.http` annotation. */
export interface RestRoute {
  method: HttpMethod;
  /** The annotated template, in the `sdk` namespace (`/sdk/bank/v1beta1/balances/{address}`). */
  path: PathTemplate;
  /** Request field filled from the JSON body: "" none, "*" the whole request. */
  body: string;
  service: DescService;
  rpc: DescMethod;
}

/**
 * Every REST route the services' annotations declare (additional bindings included), in declaration order.
 * The gateway, the Swagger document and docs/REST-ROUTES.md all come from this one list.
 */
export function restRoutes(services: readonly DescService[]): RestRoute[] {
  const routes: RestRoute[] = [];
  for (const service of services) {
    for (const rpc of service.methods) {
      if (rpc.methodKind !== "unary" || !hasOption(rpc, http)) continue;
      const rule = getOption(rpc, http);
      for (const r of [rule, ...rule.additionalBindings]) {
        const route = routeOf(r, service, rpc);
        if (route) routes.push(route);
      }
    }
  }
  return routes;
}

function routeOf(rule: HttpRule, service: DescService, rpc: DescMethod): RestRoute | null {
  const p = rule.pattern;
  let method: HttpMethod;
  let template: string;
  switch (p.case) {
    case "get":
    case "put":
    case "post":
    case "delete":
    case "patch":
      method = p.case.toUpperCase() as HttpMethod;
      template = p.value;
      break;
    case "custom":
      method = p.value.kind.toUpperCase() as HttpMethod;
      template = p.value.path;
      break;
    default:
      return null;
  }
  return { method, path: PathTemplate.parse(template), body: rule.body, service, rpc };
}

/** `sdk.bank.v1beta1.Query.AllBalances` as a route's gRPC name (`sdk.bank.v1beta1.Query/AllBalances`). */
export function grpcMethodName(route: RestRoute): string {
  return `${route.service.typeName}/${route.rpc.name}`;
}
