import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { silentLogger } from "@chaind/core/logger";
import {
  QueryDenomMetadataRequestSchema,
  QueryDenomMetadataResponseSchema,
} from "@chaind/proto/sdk/bank/v1beta1/query_pb";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { exportState } from "../../../node/src/chain/export-state.js";
import { startGrpcServer } from "../../../node/src/server/grpc/grpc-server.js";
import type { NodeServer } from "../../../node/src/server/node-server.js";
import { startRestServer } from "../../../node/src/server/rest/rest-server.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../helpers/test-home.js";

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked field by field below
type Json = any;

const alice = testAccount("alice");
const IBC = `ibc/${"27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2"}`;

/** Genesis denom_metadata as a chain's genesis.json carries it (protojson, snake_case). */
const METADATA = [
  {
    description: "The staking token",
    denom_units: [
      { denom: "stake", exponent: 0, aliases: ["microstake"] },
      { denom: "mstake", exponent: 3, aliases: [] },
      { denom: "STAKE", exponent: 6, aliases: [] },
    ],
    base: "stake",
    display: "STAKE",
    name: "Stake",
    symbol: "STK",
    uri: "",
    uri_hash: "",
  },
  {
    description: "Atom over IBC",
    denom_units: [
      { denom: IBC, exponent: 0, aliases: [] },
      { denom: "atom", exponent: 6, aliases: [] },
    ],
    base: IBC,
    display: "atom",
    name: "Cosmos Hub Atom",
    symbol: "ATOM",
    uri: "https://example.invalid/atom.svg",
    uri_hash: "",
  },
];

// Issue 34, point 3: bank's DenomMetadata and DenomsMetadata were 501 and genesis denom_metadata was dropped at
// InitChain. Now the metadata is stored at InitChain, served as the SDK serves it, and exported.
describe("bank denom metadata: genesis, queries, export", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode | undefined;
  let api: NodeServer;
  let rpc: NodeServer;

  const get = async (path: string) => {
    const res = await fetch(api.address + path);
    return { status: res.status, body: (await res.json()) as Json };
  };

  beforeAll(async () => {
    home = makeTestHome({
      accounts: [{ account: alice, coins: "1000000stake" }],
      tuneApp: (c) => {
        c.api.enable = true;
      },
      tuneGenesis: (g) => {
        (g.app_state.bank as Json).denom_metadata = METADATA;
      },
    });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    api = (await startRestServer(node, { logger: silentLogger }))!;
    rpc = (await startGrpcServer(node, { logger: silentLogger }))!;
    await node.producer.produce();
  });
  afterAll(async () => {
    await rpc?.close();
    await api?.close();
    await node?.close();
    home?.cleanup();
  });

  it("lists every denom's metadata in denom order, with the total", async () => {
    for (const prefix of ["/sdk", "/cosmos"]) {
      const r = await get(`${prefix}/bank/v1beta1/denoms_metadata`);
      expect(r.status).toBe(200);
      expect(r.body.metadatas).toEqual([METADATA[1], METADATA[0]]);
      expect(r.body.pagination).toEqual({ next_key: null, total: "2" });
    }
    const page = await get("/sdk/bank/v1beta1/denoms_metadata?pagination.limit=1");
    expect(page.body.metadatas).toEqual([METADATA[1]]);
    expect(page.body.pagination.next_key).not.toBeNull();
  });

  it("answers one denom's metadata by path and by query string, NotFound for a denom without any", async () => {
    expect((await get("/cosmos/bank/v1beta1/denoms_metadata/stake")).body).toEqual({ metadata: METADATA[0] });
    const byQuery = await get(`/cosmos/bank/v1beta1/denoms_metadata_by_query_string?denom=${IBC}`);
    expect(byQuery.body).toEqual({ metadata: METADATA[1] });
    const missing = await get("/sdk/bank/v1beta1/denoms_metadata/nothing");
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 5, message: "client metadata for denom nothing" });
    const bad = await get("/sdk/bank/v1beta1/denoms_metadata_by_query_string?denom=1bad");
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("invalid denom: 1bad");
  });

  it("serves the same over gRPC and abci_query", async () => {
    const req = toBinary(
      QueryDenomMetadataRequestSchema,
      create(QueryDenomMetadataRequestSchema, { denom: "stake" }),
    );
    const viaAbci = await node!.app.query("/cosmos.bank.v1beta1.Query/DenomMetadata", req);
    expect(fromBinary(QueryDenomMetadataResponseSchema, viaAbci.value).metadata?.symbol).toBe("STK");
    const client = new grpc.Client(rpc.address, grpc.credentials.createInsecure());
    try {
      const value = await new Promise<Buffer>((resolve, reject) =>
        client.makeUnaryRequest(
          "/cosmos.bank.v1beta1.Query/DenomMetadata",
          (b: Buffer) => b,
          (b: Buffer) => b,
          Buffer.from(req),
          (err, v) => (err ? reject(err) : resolve(v!)),
        ),
      );
      expect(
        fromBinary(QueryDenomMetadataResponseSchema, value).metadata?.denomUnits.map((u) => u.denom),
      ).toEqual(["stake", "mstake", "STAKE"]);
    } finally {
      client.close();
    }
  });

  it("exports the metadata in bank's genesis", async () => {
    await rpc.close();
    await api.close();
    await node!.close();
    node = undefined;
    const doc = await exportState(
      {
        home: home.home,
        definition: TEST_DEFINITION,
        forZeroHeight: false,
        jailAllowedAddrs: [],
        modulesToExport: [],
      },
      { logger: silentLogger },
    );
    expect((doc.app_state.bank as Json).denom_metadata).toEqual([METADATA[1], METADATA[0]]);
  });

  it("refuses genesis metadata the SDK refuses", async () => {
    const bad = makeTestHome({
      accounts: [{ account: alice, coins: "1000000stake" }],
      tuneGenesis: (g) => {
        (g.app_state.bank as Json).denom_metadata = [
          { ...METADATA[0], denom_units: [METADATA[0].denom_units[1], METADATA[0].denom_units[0]] },
        ];
      },
    });
    try {
      await expect(
        ChainNode.open({ home: bad.home, definition: TEST_DEFINITION }, { logger: silentLogger }),
      ).rejects.toThrow(
        "bank genesis: denom metadata of stake: metadata's first denomination unit must be the one with base denom 'stake'",
      );
    } finally {
      bad.cleanup();
    }
  });
});
