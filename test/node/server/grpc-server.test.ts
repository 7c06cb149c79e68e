import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { silentLogger } from "@chaind/core/logger";
import {
  ServerReflectionRequestSchema,
  type ServerReflectionResponse,
  ServerReflectionResponseSchema,
} from "@chaind/proto/grpc/reflection/v1/reflection_pb";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { namespacedRegistry } from "../../../node/src/app/namespaced-registry.js";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { startGrpcServer } from "../../../node/src/server/grpc/grpc-server.js";
import type { NodeServer } from "../../../node/src/server/node-server.js";
import { gatewayJson } from "../../../node/src/server/rest/gateway-json.js";
import { requestMessage } from "../../../node/src/server/rest/request-message.js";
import { restRoutes } from "../../../node/src/server/rest/rest-routes.js";
import { startRestServer } from "../../../node/src/server/rest/rest-server.js";
import { RouteTable } from "../../../node/src/server/rest/route-table.js";
import { anyOf, TxSigner } from "../helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../helpers/test-home.js";

// biome-ignore lint/suspicious/noExplicitAny: JSON and dynamic clients are checked field by field below
type Json = any;

const alice = testAccount("alice");
const bob = testAccount("bob");
const raw = (b: Buffer) => b;

describe("gRPC server", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let api: NodeServer;
  let rpc: NodeServer;
  let client: grpc.Client;

  /** A unary call with raw bytes; resolves with the answer or the gRPC error, and the response headers. */
  const call = (path: string, req: Uint8Array, md: Record<string, string> = {}) =>
    new Promise<{ value?: Buffer; err?: grpc.ServiceError; headers?: grpc.Metadata }>((resolve) => {
      const metadata = new grpc.Metadata();
      for (const [k, v] of Object.entries(md)) metadata.set(k, v);
      let headers: grpc.Metadata | undefined;
      const c = client.makeUnaryRequest(path, raw, raw, Buffer.from(req), metadata, (err, value) =>
        resolve({ value: value ?? undefined, err: err ?? undefined, headers }),
      );
      c.on("metadata", (m) => {
        headers = m;
      });
    });

  beforeAll(async () => {
    home = makeTestHome({
      accounts: [{ account: alice, coins: "1000000stake" }],
      validator: { account: alice, stake: 1000n },
      tuneApp: (c) => {
        c.api.enable = true;
        c.grpc.maxRecvMsgSize = 64 * 1024;
      },
    });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    api = (await startRestServer(node, { logger: silentLogger }))!;
    rpc = (await startGrpcServer(node, { logger: silentLogger }))!;
    client = new grpc.Client(rpc.address, grpc.credentials.createInsecure());
    await node.producer.produce();
  });
  afterAll(async () => {
    client?.close();
    await rpc?.close();
    await api?.close();
    await node?.close();
    home?.cleanup();
  });

  it("answers every annotated query over gRPC with the same content as REST", async () => {
    const validators = (await (await fetch(`${api.address}/sdk/staking/v1beta1/validators`)).json()) as Json;
    const valoper = validators.validators[0].operator_address as string;
    const values: Record<string, string> = {
      address: alice.address,
      delegator_addr: alice.address,
      validator_addr: valoper,
      depositor: alice.address,
      voter: alice.address,
      address_string: alice.address,
      address_bytes: Buffer.from(new Uint8Array(20).fill(7)).toString("base64url"),
      denom: "stake",
      name: "bonded_tokens_pool",
      params_type: "voting",
      hash: "AB".repeat(32),
    };
    const registry = namespacedRegistry(node.app.types.registry);
    let answered = 0;
    let compared = 0;
    const routes = restRoutes(node.app.registrar.queryServices);
    const table = new RouteTable(routes);
    const shadowed: string[] = [];
    for (const route of routes) {
      if (route.method !== "GET") continue;
      const path = new Map(route.path.fields.map((f) => [f, values[f] ?? "1"]));
      const url = route.path.template.replace(/\{([^}=]+)[^}]*\}/g, (_, f: string) =>
        encodeURIComponent(path.get(f)!),
      );
      const served = table.match("GET", url);
      if (served.kind !== "found" || served.bound.route !== route) {
        shadowed.push(route.path.template);
        continue;
      }
      const rest = await fetch(api.address + url);
      const restBody = (await rest.json()) as Json;
      const req = requestMessage(
        route.rpc.input,
        { path, query: new URLSearchParams(), bodyField: "" },
        registry,
      );
      for (const ns of ["sdk", "cosmos"]) {
        const grpcName = `/${ns}${route.service.typeName.slice(3)}/${route.rpc.name}`;
        const g = await call(grpcName, toBinary(route.rpc.input, req));
        if (g.err) {
          expect(restBody.code, `${url} vs ${grpcName}: ${g.err.details}`).toBe(g.err.code);
          expect(restBody.message).toBe(g.err.details);
          continue;
        }
        expect(rest.status, `${url}: ${JSON.stringify(restBody)}`).toBe(200);
        const json = gatewayJson(route.rpc.output, fromBinary(route.rpc.output, g.value!), registry);
        if (ns === "sdk") {
          expect(json, url).toEqual(restBody);
          answered++;
        }
        compared++;
      }
    }
    // Most routes have data on a fresh chain with a validator (a few answer NotFound on both sides).
    expect(answered).toBeGreaterThan(25);
    expect(shadowed).toEqual(["/sdk/auth/v1beta1/bech32/{address_bytes}"]);
    expect(compared).toBeGreaterThan(50);
  });

  it("answers in the cosmos namespace and reads the height metadata", async () => {
    const signer = new TxSigner(alice, 0n, home.chainId);
    const tx = await signer.sign([
      anyOf(MsgSendSchema, {
        fromAddress: alice.address,
        toAddress: bob.address,
        amount: [{ denom: "stake", amount: "7" }],
      }),
    ]);
    expect((await node.mempool.add(tx)).code).toBe(0);
    const before = node.store.latestHeight;
    await node.producer.produce();
    const { QueryBalanceRequestSchema, QueryBalanceResponseSchema } = await import(
      "@chaind/proto/sdk/bank/v1beta1/query_pb"
    );
    const req = toBinary(
      QueryBalanceRequestSchema,
      create(QueryBalanceRequestSchema, { address: bob.address, denom: "stake" }),
    );
    const now = await call("/cosmos.bank.v1beta1.Query/Balance", req);
    expect(fromBinary(QueryBalanceResponseSchema, now.value!).balance?.amount).toBe("7");
    expect(now.headers?.get("x-cosmos-block-height")).toEqual([String(before + 1)]);
    for (const key of ["x-sdk-block-height", "x-cosmos-block-height"]) {
      const old = await call("/sdk.bank.v1beta1.Query/Balance", req, { [key]: String(before) });
      expect(old.err).toBeUndefined();
      expect(fromBinary(QueryBalanceResponseSchema, old.value!).balance?.amount).toBe("0");
      expect(old.headers?.get("x-sdk-block-height")).toEqual([String(before)]);
    }
    const bad: [string, RegExp][] = [
      ["x", /^invalid height header/],
      ["-3", /^cannot query with height < 0/],
      ["999", /^cannot query with height in the future/],
    ];
    for (const [h, msg] of bad) {
      const r = await call("/sdk.bank.v1beta1.Query/Balance", req, { "x-sdk-block-height": h });
      expect(r.err?.code, h).toBe(grpc.status.INVALID_ARGUMENT);
      expect(r.err?.details, h).toMatch(msg);
    }
    const { QueryAccountRequestSchema } = await import("@chaind/proto/sdk/auth/v1beta1/query_pb");
    const acct = await call(
      "/cosmos.auth.v1beta1.Query/Account",
      toBinary(QueryAccountRequestSchema, create(QueryAccountRequestSchema, { address: alice.address })),
    );
    expect(acct.value!.toString("latin1")).toContain("/cosmos.auth.v1beta1.BaseAccount");
    expect(acct.value!.toString("latin1")).toContain("/cosmos.crypto.secp256k1.PubKey");
  });

  it("rejects unknown methods and oversized messages with gRPC codes", async () => {
    expect((await call("/sdk.bank.v1beta1.Query/Nope", new Uint8Array())).err?.code).toBe(
      grpc.status.UNIMPLEMENTED,
    );
    const big = await call("/sdk.bank.v1beta1.Query/Balance", new Uint8Array(70 * 1024));
    expect(big.err?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    const garbage = await call("/sdk.bank.v1beta1.Query/Balance", Uint8Array.from([0xff, 0xff, 0xff]));
    expect(garbage.err?.code).toBe(grpc.status.INVALID_ARGUMENT);
  });

  it("lets a generic client list services and call one from reflected descriptors", async () => {
    const reflect = (requests: Parameters<typeof create<typeof ServerReflectionRequestSchema>>[1][]) =>
      new Promise<ServerReflectionResponse[]>((resolve, reject) => {
        const out: ServerReflectionResponse[] = [];
        const stream = client.makeBidiStreamRequest(
          "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
          raw,
          raw,
        );
        stream.on("data", (b: Buffer) => out.push(fromBinary(ServerReflectionResponseSchema, b)));
        stream.on("end", () => resolve(out));
        stream.on("error", reject);
        for (const r of requests)
          stream.write(
            Buffer.from(toBinary(ServerReflectionRequestSchema, create(ServerReflectionRequestSchema, r))),
          );
        stream.end();
      });
    const [list, files, missing] = await reflect([
      { messageRequest: { case: "listServices", value: "" } },
      { messageRequest: { case: "fileContainingSymbol", value: "cosmos.bank.v1beta1.Query" } },
      { messageRequest: { case: "fileContainingSymbol", value: "no.such.Symbol" } },
    ]);
    const names =
      list.messageResponse.case === "listServicesResponse"
        ? list.messageResponse.value.service.map((s) => s.name)
        : [];
    for (const n of [
      "sdk.bank.v1beta1.Query",
      "cosmos.bank.v1beta1.Query",
      "cosmos.upgrade.v1beta1.Query",
      "cosmos.tx.v1beta1.Service",
      "cosmos.base.tendermint.v1beta1.Service",
      "grpc.reflection.v1.ServerReflection",
    ])
      expect(names).toContain(n);
    expect(missing.messageResponse.case).toBe("errorResponse");
    const [own] = await reflect([
      { messageRequest: { case: "fileContainingSymbol", value: "grpc.reflection.v1.ServerReflection" } },
    ]);
    expect(own.messageResponse.case).toBe("fileDescriptorResponse");
    expect(files.messageResponse.case).toBe("fileDescriptorResponse");
    const protos =
      files.messageResponse.case === "fileDescriptorResponse"
        ? files.messageResponse.value.fileDescriptorProto
        : [];
    const set = create(FileDescriptorSetSchema, {
      file: protos.map((p) => fromBinary(FileDescriptorProtoSchema, p)),
    });
    expect(set.file[0].name).toBe("cosmos/bank/v1beta1/query.proto");
    // @grpc/proto-loader builds a client from nothing but the reflected descriptors.
    const def = protoLoader.loadFileDescriptorSetFromBuffer(
      Buffer.from(toBinary(FileDescriptorSetSchema, set)),
      {
        keepCase: true,
        longs: String,
        defaults: true,
      },
    );
    const pkg = grpc.loadPackageDefinition(def) as Json;
    const bank = new pkg.cosmos.bank.v1beta1.Query(rpc.address, grpc.credentials.createInsecure());
    const answer = await new Promise<Json>((resolve, reject) =>
      bank.AllBalances({ address: alice.address }, (err: Error | null, res: Json) =>
        err ? reject(err) : resolve(res),
      ),
    );
    bank.close();
    expect(answer.balances[0].denom).toBe("stake");
    expect(Number(answer.balances[0].amount)).toBeGreaterThan(0);
  });
});
