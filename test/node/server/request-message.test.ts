import { create, createMutableRegistry } from "@bufbuild/protobuf";
import {
  type GetTxsEventRequest,
  GetTxsEventRequestSchema,
  OrderBy,
  SimulateRequestSchema,
} from "@chaind/proto/sdk/tx/v1beta1/service_pb";
import { describe, expect, it } from "vitest";
import { ChainError } from "../../../node/src/errors/chain-error.js";
import { PathTemplate } from "../../../node/src/server/rest/path-template.js";
import { requestMessage } from "../../../node/src/server/rest/request-message.js";

const registry = createMutableRegistry();
const build = (query: string, path: Record<string, string> = {}) =>
  requestMessage(
    GetTxsEventRequestSchema,
    { path: new Map(Object.entries(path)), query: new URLSearchParams(query), bodyField: "" },
    registry,
  ) as GetTxsEventRequest;

describe("REST request parameters", () => {
  it("reads repeated keys, dotted nested fields, enums by name or number, and skips unknown keys", () => {
    const m = build(
      "events=a%3D1&events=b%3D2&pagination.limit=5&pagination.reverse=true&order_by=ORDER_BY_DESC&nope=1",
    );
    expect(m).toEqual(
      create(GetTxsEventRequestSchema, {
        events: ["a=1", "b=2"],
        pagination: { limit: 5n, reverse: true },
        orderBy: OrderBy.DESC,
      }),
    );
    expect(build("order_by=2").orderBy).toBe(OrderBy.DESC);
  });

  it("lets path variables win over query parameters", () => {
    expect(build("query=x", { query: "tx.height=3" }).query).toBe("tx.height=3");
  });

  it("rejects values of the wrong type as InvalidArgument", () => {
    for (const q of ["page=abc", "pagination.reverse=maybe", "order_by=SIDEWAYS"]) {
      const e = (() => {
        try {
          build(q);
        } catch (err) {
          return err;
        }
      })();
      expect(e, q).toBeInstanceOf(ChainError);
      expect((e as ChainError).grpcCode, q).toBe(3);
    }
  });

  it("takes a whole-request JSON body and rejects a non-object one", () => {
    const m = requestMessage(
      SimulateRequestSchema,
      { path: new Map(), query: new URLSearchParams(), bodyField: "*", body: { tx_bytes: "AQID" } },
      registry,
    );
    expect(m).toMatchObject({ txBytes: Uint8Array.from([1, 2, 3]) });
    expect(() =>
      requestMessage(
        SimulateRequestSchema,
        { path: new Map(), query: new URLSearchParams(), bodyField: "*", body: [] },
        registry,
      ),
    ).toThrow(/must be a JSON object/);
  });

  it("matches path templates segment by segment and decodes variables", () => {
    const t = PathTemplate.parse("/sdk/bank/v1beta1/balances/{address}/by_denom");
    expect(t.match("/sdk/bank/v1beta1/balances/sdk1x%2Fy/by_denom")?.get("address")).toBe("sdk1x/y");
    expect(t.match("/sdk/bank/v1beta1/balances/sdk1x")).toBeNull();
    expect(t.match("/sdk/bank/v1beta1/balances//by_denom")).toBeNull();
    expect(t.withPrefix("cosmos").template).toBe("/cosmos/bank/v1beta1/balances/{address}/by_denom");
    expect(PathTemplate.parse("/a/{rest=**}").match("/a/b/c")?.get("rest")).toBe("b/c");
  });
});
