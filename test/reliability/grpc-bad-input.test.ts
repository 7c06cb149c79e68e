import { silentLogger } from "@chaind/core/logger";
import { type Client, credentials, Metadata, makeGenericClientConstructor, status } from "@grpc/grpc-js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainNode } from "../../node/src/chain/chain-node.js";
import { startGrpcServer } from "../../node/src/server/grpc/grpc-server.js";
import type { NodeServer } from "../../node/src/server/node-server.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../node/helpers/test-home.js";
import { fuzzAssert } from "./fuzz-assert.js";
import { jsFault } from "./js-fault-text.js";
import { soakSize } from "./soak-size.js";

const alice = testAccount("alice");
const RUNS = soakSize("grpc_fuzz", 200);
const raw = (b: Buffer) => b;

/** Height metadata values: in and out of range, signed, padded, junk (gRPC metadata is printable ASCII). */
const heightValue = fc.oneof(
  fc.integer({ min: -3, max: 10 }).map(String),
  fc.constantFrom("", " ", "+1", "1.5", "1e2", "0x2", "9007199254740993", "abc"),
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 12 }),
);

/**
 * gRPC with random request bytes, random method names and random height metadata: every call ends with a status
 * other than INTERNAL / UNKNOWN (those mean a JS exception escaped), with details, and the server keeps serving.
 */
describe("gRPC under random bad input", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let grpc: NodeServer;
  let client: Client;
  let paths: string[];

  const call = (path: string, body: Buffer, md: Metadata) =>
    new Promise<{ code: number; details: string }>((resolve) => {
      client.makeUnaryRequest(path, raw, raw, body, md, { deadline: Date.now() + 10_000 }, (err) =>
        resolve(err ? { code: err.code, details: err.details } : { code: status.OK, details: "" }),
      );
    });

  beforeAll(async () => {
    home = makeTestHome({
      accounts: [{ account: alice, coins: "1000000stake" }],
      tuneApp: (c) => {
        c.grpc.maxRecvMsgSize = 64 * 1024;
      },
    });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    grpc = (await startGrpcServer(node, { logger: silentLogger })) as NodeServer;
    for (let i = 0; i < 3; i++) await node.producer.produce();
    const Generic = makeGenericClientConstructor({}, "fuzz");
    client = new Generic(grpc.address, credentials.createInsecure());
    paths = node.app.registrar.queryServices.flatMap((svc) =>
      svc.methods.flatMap((m) => [
        `/${svc.typeName}/${m.name}`,
        `/${svc.typeName.replace(/^sdk\./, "cosmos.")}/${m.name}`,
      ]),
    );
  });
  afterAll(async () => {
    client?.close();
    await grpc?.close();
    await node?.close();
    home?.cleanup();
  });

  const SIMULATION_FAILED = / With gas wanted: '\d+' and gas used: '\d+' $/;

  it("answers random bytes, paths and height metadata with a coded status, never INTERNAL or UNKNOWN", async () => {
    const path = fc.oneof(
      fc.constantFrom(...paths),
      fc.constantFrom("/sdk.bank.v1beta1.Query/Nope", "/nope/Nope", "/", "//", "/sdk.bank.v1beta1.Query/"),
      fc.string({ maxLength: 20 }).map((s) => `/${s.replace(/[^\x21-\x7e]/g, "")}`),
    );
    await fuzzAssert(
      { suite: "gRPC bad input", property: "random bytes, paths and height metadata", runs: RUNS },
      fc.asyncProperty(
        path,
        fc.uint8Array({ maxLength: 200 }),
        fc.option(fc.tuple(fc.constantFrom("x-cosmos-block-height", "x-sdk-block-height"), heightValue), {
          nil: undefined,
        }),
        async (p, bytes, header) => {
          const md = new Metadata();
          if (header) md.set(header[0], header[1]);
          const r = await call(p, Buffer.from(bytes), md);
          const what = `${p} ${Buffer.from(bytes).toString("hex")} ${JSON.stringify(header)}: ${r.code} ${r.details}`;
          // A failed simulation is UNKNOWN with the gas figures, as in the SDK's tx service; nothing else is.
          if (!(r.code === status.UNKNOWN && /\/Simulate$/.test(p) && SIMULATION_FAILED.test(r.details)))
            expect([status.INTERNAL, status.UNKNOWN], what).not.toContain(r.code);
          if (r.code !== status.OK) expect(r.details.length, what).toBeGreaterThan(0);
          expect(jsFault(r.details), what).toBeUndefined();
        },
      ),
    );
    const health = await call("/sdk.bank.v1beta1.Query/Params", Buffer.alloc(0), new Metadata());
    expect(health.code).toBe(status.OK);
  });

  it("refuses a message over grpc.max-recv-msg-size with RESOURCE_EXHAUSTED and keeps serving", async () => {
    const r = await call("/sdk.bank.v1beta1.Query/Params", Buffer.alloc(100 * 1024), new Metadata());
    expect(r.code).toBe(status.RESOURCE_EXHAUSTED);
    expect((await call("/sdk.bank.v1beta1.Query/Params", Buffer.alloc(0), new Metadata())).code).toBe(
      status.OK,
    );
  });
});
