import { Query as BankQuery } from "@chaind/proto/sdk/bank/v1beta1/query_pb";
import { Query as GovQuery } from "@chaind/proto/sdk/gov/v1/query_pb";
import { Query as GovLegacyQuery } from "@chaind/proto/sdk/gov/v1beta1/query_pb";
import { Service as TxService } from "@chaind/proto/sdk/tx/v1beta1/service_pb";
import { Query as UpgradeQuery } from "@chaind/proto/sdk/upgrade/v1beta1/query_pb";
import { describe, expect, it } from "vitest";
import { restRoutes } from "../../../node/src/server/rest/rest-routes.js";
import { openApiDocument } from "../../../node/src/server/swagger/openapi-document.js";

// biome-ignore lint/suspicious/noExplicitAny: the document is walked generically
type Json = any;

const doc: Json = openApiDocument(restRoutes([BankQuery, GovQuery, TxService, UpgradeQuery]), {
  title: "t",
  version: "1",
});

describe("OpenAPI document", () => {
  it("has one operation per annotated RPC, with path, query, header and body parameters", () => {
    const ops = Object.values(doc.paths).flatMap((p: Json) => Object.values(p));
    expect(ops).toHaveLength(restRoutes([BankQuery, GovQuery, TxService, UpgradeQuery]).length);
    const balances = doc.paths["/sdk/bank/v1beta1/balances/{address}"].get;
    const names = balances.parameters.map((p: Json) => `${p.in}:${p.name}`);
    expect(names).toContain("path:address");
    expect(names).toContain("query:pagination.limit");
    expect(names).toContain("query:pagination.count_total");
    expect(names).toContain("header:x-sdk-block-height");
    const proposals = doc.paths["/sdk/gov/v1/proposals"].get.parameters;
    expect(proposals.find((p: Json) => p.name === "proposal_status").schema.enum).toContain(
      "PROPOSAL_STATUS_PASSED",
    );
    const broadcast = doc.paths["/sdk/tx/v1beta1/txs"].post;
    expect(broadcast.requestBody.content["application/json"].schema.$ref).toBe(
      "#/components/schemas/sdk.tx.v1beta1.BroadcastTxRequest",
    );
    expect(broadcast.parameters.filter((p: Json) => p.in === "query")).toEqual([]);
  });

  it("documents LegacyDec fields as the decimal strings the gateway prints, not as bytes", () => {
    const legacy: Json = openApiDocument(restRoutes([GovLegacyQuery]), { title: "t", version: "1" });
    const tally = legacy.components.schemas["sdk.gov.v1beta1.TallyParams"].properties;
    expect(tally.quorum).toEqual({ type: "string", example: "0.500000000000000000" });
    const weight = legacy.components.schemas["sdk.gov.v1beta1.WeightedVoteOption"].properties.weight;
    expect(weight.example).toBe("0.500000000000000000");
    expect(legacy.paths["/sdk/gov/v1beta1/params/{params_type}"].get).toBeDefined();
  });

  it("declares every path variable and resolves every schema reference", () => {
    for (const [path, methods] of Object.entries(doc.paths) as [string, Json][]) {
      const vars = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const op of Object.values(methods) as Json[]) {
        const declared = op.parameters.filter((p: Json) => p.in === "path").map((p: Json) => p.name);
        expect(declared, path).toEqual(vars);
      }
    }
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map(
      (m) => m[1],
    );
    expect(refs.length).toBeGreaterThan(50);
    for (const r of refs) expect(doc.components.schemas[r], r).toBeDefined();
    const uint64 = doc.components.schemas["sdk.base.query.v1beta1.PageResponse"].properties.total;
    expect(uint64).toEqual({ type: "string", format: "uint64" });
  });
});
