import { create, type DescMessage, toBinary } from "@bufbuild/protobuf";
import { silentLogger } from "@chaind/core/logger";
import { GetBlockByHeightRequestSchema } from "@chaind/proto/sdk/base/tendermint/v1beta1/query_pb";
import { TextProposalSchema } from "@chaind/proto/sdk/gov/v1beta1/gov_pb";
import { MsgSubmitProposalSchema as MsgSubmitProposalV1beta1Schema } from "@chaind/proto/sdk/gov/v1beta1/tx_pb";
import { MsgSoftwareUpgradeSchema } from "@chaind/proto/sdk/upgrade/v1beta1/tx_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NON_NULLABLE } from "../../../node/src/app/gogoproto-non-nullable.js";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import type { NodeServer } from "../../../node/src/server/node-server.js";
import { startRestServer } from "../../../node/src/server/rest/rest-server.js";
import { GOV_ADDRESS, passProposal } from "../helpers/gov-flow.js";
import { anyOf, TxSigner } from "../helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../helpers/test-home.js";

const alice = testAccount("alice");

// The wire format read by hand (field number << 3 | wire type, varints, lengths), so the expected bytes never
// come from the encoder under test.

/** Go's zero time as gogoproto writes a Timestamp: field 1 (seconds, varint) = -62135596800 as int64; nanos 0. */
const GO_ZERO_TIME = [0x08, 0x80, 0x92, 0xb8, 0xc3, 0x98, 0xfe, 0xff, 0xff, 0xff, 0x01];

const varint = (n: number): number[] => {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
};
/** A length-delimited field (wire type 2). */
const ld = (field: number, payload: readonly number[]) => [
  (field << 3) | 2,
  ...varint(payload.length),
  ...payload,
];
const text = (s: string) => [...Buffer.from(s, "utf8")];

/** The payloads of each length-delimited top-level field, by field number. */
function fieldsOf(b: Uint8Array): Map<number, Uint8Array[]> {
  const out = new Map<number, Uint8Array[]>();
  let i = 0;
  const readVarint = () => {
    let n = 0;
    let shift = 1;
    for (;;) {
      const byte = b[i++];
      n += (byte & 0x7f) * shift;
      shift *= 128;
      if (byte < 0x80) return n;
    }
  };
  while (i < b.length) {
    const key = readVarint();
    const [field, wire] = [Math.floor(key / 8), key % 8];
    let value: Uint8Array;
    if (wire === 0) {
      const start = i;
      readVarint();
      value = b.subarray(start, i);
    } else if (wire === 2) {
      const len = readVarint();
      value = b.subarray(i, i + len);
      i += len;
    } else throw new Error(`wire type ${wire} not expected here`);
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}

/** The payload at a path of field numbers (the first occurrence at each level). */
function at(b: Uint8Array, ...path: number[]): Uint8Array | undefined {
  let cur: Uint8Array | undefined = b;
  for (const f of path) cur = cur && fieldsOf(cur).get(f)?.[0];
  return cur;
}

const hex = (b: Iterable<number> | undefined) => (b ? Buffer.from([...b]).toString("hex") : "absent");

describe("non-nullable gogoproto fields, written as the SDK writes them", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let api: NodeServer;
  let signer: TxSigner;
  let upgradeProposalId: bigint;
  let textProposalId: bigint;
  const PLAN_HEIGHT = 100_000;

  const query = async (path: string, req: Uint8Array = new Uint8Array()) =>
    (await node.app.query(path, req)).value;

  beforeAll(async () => {
    home = makeTestHome({
      accounts: [{ account: alice, coins: "10000000000stake" }],
      validator: { account: alice, stake: 1_000_000n },
      govPeriodMs: 1000,
      tuneApp: (c) => {
        c.api.enable = true;
      },
    });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    api = (await startRestServer(node, { logger: silentLogger }))!;
    await node.producer.produce();
    signer = new TxSigner(alice, 0n, home.chainId);
    const passed = await passProposal(node, signer, [
      anyOf(MsgSoftwareUpgradeSchema, {
        authority: GOV_ADDRESS,
        plan: { name: "v2", height: BigInt(PLAN_HEIGHT) },
      }),
    ]);
    upgradeProposalId = passed.id;
    // A v1beta1 text proposal left in its deposit period: no voting times yet.
    const r = await node.mempool.add(
      await signer.sign([
        anyOf(MsgSubmitProposalV1beta1Schema, {
          content: anyOf(TextProposalSchema, { title: "t", description: "d" }),
          initialDeposit: [{ denom: "stake", amount: "10" }],
          proposer: alice.address,
        }),
      ]),
    );
    expect(r.code, r.log).toBe(0);
    const b = await node.producer.produce();
    expect(b.txResults[0].code, b.txResults[0].log).toBe(0);
    textProposalId = upgradeProposalId + 1n;
  });
  afterAll(async () => {
    await api?.close();
    await node?.close();
    home?.cleanup();
  });

  it("every entry of the table names a message-typed singular field of a served type", () => {
    // Every message type an answer can hold: the queries' outputs and what an Any may pack, at any depth.
    const served = new Map<string, DescMessage>();
    const todo: DescMessage[] = [...node.app.registrar.queries.values()].map((q) => q.output);
    for (const t of node.app.types.registry) if (t.kind === "message") todo.push(t);
    while (todo.length > 0) {
      const d = todo.pop()!;
      if (served.has(d.typeName)) continue;
      served.set(d.typeName, d);
      for (const f of d.fields)
        if (f.fieldKind === "message" || f.fieldKind === "list" || f.fieldKind === "map")
          if (f.message) todo.push(f.message);
    }
    expect(Object.keys(NON_NULLABLE).filter((t) => !served.has(t))).toEqual([]);
    for (const [typeName, fields] of Object.entries(NON_NULLABLE)) {
      const desc = served.get(typeName);
      for (const name of fields) {
        const f = desc!.fields.find((x) => x.name === name);
        expect(f?.fieldKind, `${typeName}.${name}`).toBe("message");
      }
    }
  });

  // Plan { name = 1, time = 2 (Go's zero time), height = 3 }.
  const plan = () => [...ld(1, text("v2")), ...ld(2, GO_ZERO_TIME), 0x18, ...varint(PLAN_HEIGHT)];

  it("CurrentPlan writes Plan.time as Go's zero time, under both namespaces", async () => {
    const expected = hex(ld(1, plan()));
    expect(hex(await query("/sdk.upgrade.v1beta1.Query/CurrentPlan"))).toBe(expected);
    expect(hex(await query("/cosmos.upgrade.v1beta1.Query/CurrentPlan"))).toBe(expected);
  });

  it("a gov proposal's MsgSoftwareUpgrade carries the plan's zero time, as the SDK repacks it", async () => {
    const req = new Uint8Array([0x08, ...varint(Number(upgradeProposalId))]);
    const answer = await query("/sdk.gov.v1.Query/Proposal", req);
    // QueryProposalResponse.proposal (1) → Proposal.messages (2) → Any.value (2).
    const msg = at(answer, 1, 2, 2);
    expect(hex(msg)).toBe(hex([...ld(1, text(GOV_ADDRESS)), ...ld(2, plan())]));
    // The proposals list answers the same bytes.
    const list = await query("/sdk.gov.v1.Query/Proposals");
    expect(hex(at(list, 1, 2, 2))).toBe(hex(msg));
  });

  it("REST prints the zero time as the SDK's gateway does", async () => {
    const res = await fetch(`${api.address}/cosmos/upgrade/v1beta1/current_plan`);
    const body = (await res.json()) as { plan: { name: string; time: string; height: string } };
    expect(body.plan).toMatchObject({
      name: "v2",
      time: "0001-01-01T00:00:00Z",
      height: String(PLAN_HEIGHT),
    });
  });

  it("a v1beta1 proposal in its deposit period writes its voting times as zero times and its tally", async () => {
    const req = new Uint8Array([0x08, ...varint(Number(textProposalId))]);
    const proposal = at(await query("/sdk.gov.v1beta1.Query/Proposal", req), 1)!;
    const f = fieldsOf(proposal);
    // voting_start_time (8) and voting_end_time (9): Go's zero time; final_tally_result (4): four "0" strings.
    expect(hex(f.get(8)?.[0])).toBe(hex(GO_ZERO_TIME));
    expect(hex(f.get(9)?.[0])).toBe(hex(GO_ZERO_TIME));
    expect(hex(f.get(4)?.[0])).toBe(hex([1, 2, 3, 4].flatMap((n) => ld(n, text("0")))));
    const rest = (await (
      await fetch(`${api.address}/cosmos/gov/v1beta1/proposals/${textProposalId}`)
    ).json()) as {
      proposal: { voting_start_time: string; voting_end_time: string };
    };
    expect(rest.proposal.voting_start_time).toBe("0001-01-01T00:00:00Z");
    expect(rest.proposal.voting_end_time).toBe("0001-01-01T00:00:00Z");
  });

  it("a validator that never unbonded writes its unbonding time as the SDK's NewValidator sets it: the Unix epoch", async () => {
    const answer = await query("/sdk.staking.v1beta1.Query/Validators", new Uint8Array());
    // QueryValidatorsResponse.validators (1) → Validator.unbonding_time (9): an empty Timestamp, present.
    expect(hex(at(answer, 1, 9))).toBe("");
    const rest = (await (await fetch(`${api.address}/cosmos/staking/v1beta1/validators`)).json()) as {
      validators: { unbonding_time: string }[];
    };
    expect(rest.validators[0].unbonding_time).toBe("1970-01-01T00:00:00Z");
  });

  it("block 1's header writes its empty last_block_id as CometBFT does (an empty part_set_header inside)", async () => {
    const req = toBinary(
      GetBlockByHeightRequestSchema,
      create(GetBlockByHeightRequestSchema, { height: 1n }),
    );
    const answer = await query("/sdk.base.tendermint.v1beta1.Service/GetBlockByHeight", req);
    // GetBlockByHeightResponse.block (2) and .sdk_block (3) → header (1) → last_block_id (5) = BlockID with
    // part_set_header (2) empty.
    expect(hex(at(answer, 2, 1, 5))).toBe(hex(ld(2, [])));
    expect(hex(at(answer, 3, 1, 5))).toBe(hex(ld(2, [])));
  });
});
