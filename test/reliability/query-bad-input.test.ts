import { type DescMessage, toBinary } from "@bufbuild/protobuf";
import { silentLogger } from "@chaind/core/logger";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainNode } from "../../node/src/chain/chain-node.js";
import { ChainError } from "../../node/src/errors/chain-error.js";
import { GrpcCode } from "../../node/src/errors/grpc-code.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../node/helpers/test-home.js";
import { fuzzAssert } from "./fuzz-assert.js";
import { jsFault } from "./js-fault-text.js";
import { randomMessage } from "./random-message.js";
import { soakSize } from "./soak-size.js";

const alice = testAccount("alice");
const RUNS = soakSize("query_fuzz", 400);

/**
 * Every query handler behind gRPC, REST and abci_query, fed random (well-typed) request messages: each answers
 * or refuses with a coded error, never an internal fault (a JS exception turned into code 1 / INTERNAL).
 */
describe("query handlers under random request messages", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let methods: { path: string; input: DescMessage }[];
  let strings: string[];

  beforeAll(async () => {
    home = makeTestHome({
      accounts: [{ account: alice, coins: "1000000stake" }],
      validator: { account: testAccount("val"), stake: 1_000_000n },
    });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    for (let i = 0; i < 3; i++) await node.producer.produce();
    methods = node.app.registrar.queryServices.flatMap((svc) =>
      svc.methods.map((m) => ({ path: `/${svc.typeName}/${m.name}`, input: m.input })),
    );
    strings = [alice.address, testAccount("val").address, "stake", "", "v2", "1", "sdkvaloper1", "ibc/ABC"];
  });
  afterAll(async () => {
    await node?.close();
    home?.cleanup();
  });

  it("answers or refuses every random request with a coded error", async () => {
    await fuzzAssert(
      {
        suite: "query handlers",
        property: "answers or refuses every random request with a coded error",
        runs: RUNS,
      },
      fc.asyncProperty(fc.nat(), fc.gen(), fc.constantFrom(0, 1, 2), async (i, g, height) => {
        const { path, input } = methods[i % methods.length];
        const msg = randomMessage(g, input, strings);
        const bytes = toBinary(input, msg);
        try {
          await node.app.query(path, bytes, height);
        } catch (e) {
          const what = `${path} ${Buffer.from(bytes).toString("hex")} @${height}: ${(e as Error).message}`;
          expect(e, what).toBeInstanceOf(ChainError);
          const ce = e as ChainError;
          // A failed simulation is UNKNOWN with the gas figures, as in the SDK's tx service; nothing else is.
          const failedSimulation =
            ce.grpcCode === GrpcCode.UNKNOWN &&
            path.endsWith("/Simulate") &&
            / With gas wanted: '\d+' and gas used: '\d+' $/.test(ce.message);
          if (!failedSimulation)
            expect([GrpcCode.INTERNAL, GrpcCode.UNKNOWN].includes(ce.grpcCode), what).toBe(false);
          expect(ce.message.length, what).toBeGreaterThan(0);
          expect(jsFault(ce.message), what).toBeUndefined();
        }
      }),
    );
  });
});
