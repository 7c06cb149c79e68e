import {
  create,
  type DescField,
  type DescMessage,
  fromBinary,
  type Message,
  type Registry,
  ScalarType,
  toBinary,
} from "@bufbuild/protobuf";
import { anyPack } from "@bufbuild/protobuf/wkt";
import { silentLogger } from "@chaind/core/logger";
import { BaseAccountSchema } from "@chaind/proto/sdk/auth/v1beta1/auth_pb";
import { MsgSoftwareUpgradeSchema } from "@chaind/proto/sdk/upgrade/v1beta1/tx_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { namespacedRegistry } from "../../../node/src/app/namespaced-registry.js";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import type { NodeServer } from "../../../node/src/server/node-server.js";
import { gatewayJson } from "../../../node/src/server/rest/gateway-json.js";
import { GatewayJsonWriter } from "../../../node/src/server/rest/gateway-json-writer.js";
import { requestMessage } from "../../../node/src/server/rest/request-message.js";
import { restRoutes } from "../../../node/src/server/rest/rest-routes.js";
import { startRestServer } from "../../../node/src/server/rest/rest-server.js";
import { RouteTable } from "../../../node/src/server/rest/route-table.js";
import { GOV_ADDRESS, passProposal } from "../helpers/gov-flow.js";
import { anyOf, TxSigner } from "../helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../helpers/test-home.js";

const alice = testAccount("alice");

// biome-ignore lint/suspicious/noExplicitAny: a few JSON answers are checked field by field below
type Json = any;
const getJson = async (url: string): Promise<Json> => (await fetch(url)).json();

/** What the gateway printed before its writers: protobuf-es `toJson` (through gatewayJson), stringified. */
const reference = (desc: DescMessage, message: Message, registry: Registry) =>
  JSON.stringify(gatewayJson(desc, message, registry));

describe("REST answers written from the message", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let api: NodeServer;
  let registry: Registry;
  let proposalId: bigint;

  beforeAll(async () => {
    home = makeTestHome({
      accounts: [{ account: alice, coins: "10000000000stake,5token" }],
      validator: { account: alice, stake: 1_000_000n },
      govPeriodMs: 1000,
      tuneApp: (c) => {
        c.api.enable = true;
      },
    });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    api = (await startRestServer(node, { logger: silentLogger }))!;
    registry = namespacedRegistry(node.app.types.registry);
    await node.producer.produce();
    // A plan in state (current_plan), a passed proposal holding an Any, its votes, deposits and tally.
    const proposal = await passProposal(node, new TxSigner(alice, 0n, home.chainId), [
      anyOf(MsgSoftwareUpgradeSchema, {
        authority: GOV_ADDRESS,
        plan: { name: "v2", height: BigInt(node.store.latestHeight + 1000), info: '{"binaries":{}}' },
      }),
    ]);
    proposalId = proposal.id;
  }, 30_000);
  afterAll(async () => {
    await api?.close();
    await node?.close();
    home?.cleanup();
  });

  it("are byte for byte what protobuf-es toJson gives, for every GET route with data, in both namespaces", async () => {
    const height = node.store.latestHeight;
    const table = new RouteTable(restRoutes(node.app.registrar.queryServices));
    const validators = await getJson(`${api.address}/sdk/staking/v1beta1/validators`);
    const valoper = validators.validators[0].operator_address;
    const values: Record<string, string> = {
      address: alice.address,
      delegator_addr: alice.address,
      voter: alice.address,
      depositor: alice.address,
      validator_addr: valoper,
      src_validator_addr: valoper,
      dst_validator_addr: valoper,
      proposal_id: String(proposalId),
      name: "v2",
      denom: "stake",
      height: String(height),
      params_type: "tallying",
    };
    const compared: string[] = [];
    for (const b of table.bound) {
      if (b.route.method !== "GET") continue;
      const names = b.path.fields.map((f) => f.slice(f.lastIndexOf(".") + 1));
      if (names.some((n) => values[n] === undefined)) continue;
      let path = b.path.template;
      for (const n of names) path = path.replace(/\{[^}]*\}/, encodeURIComponent(values[n]));
      const res = await fetch(api.address + path, { headers: { "x-cosmos-block-height": String(height) } });
      const body = Buffer.from(await res.arrayBuffer());
      if (res.status !== 200) continue;
      const found = table.match("GET", path);
      if (found.kind !== "found") throw new Error(`${path}: no route`);
      const { input, output } = found.bound.route.rpc;
      const req = requestMessage(
        input,
        { path: found.values, query: new URLSearchParams(), bodyField: "" },
        registry,
      );
      const answer = await node.app.query(found.bound.grpcPath, toBinary(input, req), height);
      const expected = reference(output, fromBinary(output, answer.value), registry);
      expect(body.toString(), path).toBe(expected);
      expect(body.equals(Buffer.from(expected)), path).toBe(true);
      compared.push(path);
    }
    for (const p of [
      `/cosmos/bank/v1beta1/balances/${alice.address}`,
      "/cosmos/upgrade/v1beta1/current_plan",
      "/cosmos/upgrade/v1beta1/applied_plan/v2",
      "/cosmos/gov/v1/proposals",
      "/cosmos/gov/v1beta1/proposals",
      `/cosmos/gov/v1beta1/proposals/${proposalId}/tally`,
      "/cosmos/gov/v1beta1/params/tallying",
      "/cosmos/staking/v1beta1/validators",
      `/cosmos/auth/v1beta1/accounts/${alice.address}`,
      `/sdk/auth/v1beta1/accounts/${alice.address}`,
      "/cosmos/base/tendermint/v1beta1/blocks/latest",
    ])
      expect(compared).toContain(p);
    // The data the comparisons rest on is there: a plan, a proposal holding an Any, two balances.
    const plan = await getJson(`${api.address}/cosmos/upgrade/v1beta1/current_plan`);
    expect(plan.plan.name).toBe("v2");
    expect(plan.plan.time).toBe("0001-01-01T00:00:00Z");
    const bal = await getJson(`${api.address}/cosmos/bank/v1beta1/balances/${alice.address}`);
    expect(bal.balances.map((c: { denom: string }) => c.denom)).toEqual(["stake", "token"]);
    const props = await getJson(`${api.address}/cosmos/gov/v1/proposals`);
    expect(props.proposals[0].messages[0]["@type"]).toBe("/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade");
  });

  it("print every field of every query answer type as protobuf-es toJson does, without falling back", () => {
    const writer = new GatewayJsonWriter(registry);
    const outputs = new Set<DescMessage>();
    for (const m of node.app.registrar.queries.values()) outputs.add(m.output);
    expect(outputs.size).toBeGreaterThan(50);
    for (const desc of outputs) {
      for (const message of [create(desc), filled(desc, registry, 0, 1), filled(desc, registry, 0, 2)]) {
        // What the gateway printed came through protobuf bytes, which is what a handler's answer would be.
        const expected = reference(desc, fromBinary(desc, toBinary(desc, message)), registry);
        expect(writer.writeCompiled(desc, message), desc.typeName).toBe(expected);
        expect(writer.write(desc, message), desc.typeName).toBe(expected);
      }
    }
  });

  it("hands what the writers do not cover to the way before: unknown fields, a field left undefined, an Any of an unknown type", () => {
    const writer = new GatewayJsonWriter(registry);
    const desc = BaseAccountSchema;
    const withUnknown = fromBinary(desc, new Uint8Array([...toBinary(desc, create(desc)), 0xf8, 0x01, 0x01]));
    expect(() => writer.writeCompiled(desc, withUnknown)).toThrow();
    expect(writer.write(desc, withUnknown)).toBe(reference(desc, withUnknown, registry));
    // A field left undefined by a handler: as before, what its protobuf bytes read back as.
    const balances = node.app.registrar.queries.get("/sdk.bank.v1beta1.Query/AllBalances")!.output;
    const loose = create(balances, { balances: [{ denom: "stake", amount: "1" }] }) as Json;
    delete loose.balances[0].amount;
    expect(() => writer.writeCompiled(balances, loose)).toThrow();
    expect(writer.write(balances, loose)).toBe(
      reference(balances, fromBinary(balances, toBinary(balances, loose)), registry),
    );
    const output = node.app.registrar.queries.get("/sdk.auth.v1beta1.Query/Account")!.output;
    const unknownAny = create(output, { account: { typeUrl: "/no.such.Type", value: new Uint8Array([1]) } });
    expect(() => writer.write(output, unknownAny)).toThrow(/not in the type registry/);
  });
});

/**
 * A message with every field set (variant 1 and 2 differ in values: empty and non-empty lists, strings that need
 * escaping, enum numbers with and without a name, each member of a oneof), down to a few levels.
 */
function filled(desc: DescMessage, registry: Registry, depth: number, variant: 1 | 2): Message {
  const init: Record<string, unknown> = {};
  const oneofsSet = new Set<string>();
  for (const f of desc.fields) {
    if (f.oneof) {
      // Variant 1 sets the first member of each oneof, variant 2 the last.
      const members = f.oneof.fields;
      if (f !== (variant === 1 ? members[0] : members[members.length - 1])) continue;
      if (oneofsSet.has(f.oneof.localName)) continue;
      oneofsSet.add(f.oneof.localName);
      const value = single(f, registry, depth, variant);
      if (value !== undefined) init[f.oneof.localName] = { case: f.localName, value };
      continue;
    }
    if (f.fieldKind === "list") {
      const one = single(f, registry, depth, variant);
      init[f.localName] =
        one === undefined ? [] : variant === 1 ? [one] : [one, single(f, registry, depth, 1)];
    } else if (f.fieldKind === "map") {
      const v = single(f, registry, depth, variant);
      const keys =
        f.mapKey === ScalarType.BOOL ? ["true"] : f.mapKey === ScalarType.STRING ? ['k"ey', "0"] : ["1", "0"];
      if (v !== undefined) init[f.localName] = Object.fromEntries(keys.map((k) => [k, v]));
    } else {
      const v = single(f, registry, depth, variant);
      if (v !== undefined) init[f.localName] = v;
    }
  }
  return create(desc, init);
}

function single(f: DescField, registry: Registry, depth: number, variant: 1 | 2): unknown {
  const kind = f.fieldKind === "list" ? f.listKind : f.fieldKind === "map" ? f.mapKind : f.fieldKind;
  if (kind === "message") {
    const m = (f as { message: DescMessage }).message;
    if (depth >= 3) return undefined;
    if (m.typeName === "google.protobuf.Any")
      return variant === 1
        ? anyPack(BaseAccountSchema, create(BaseAccountSchema, { address: alice.address, sequence: 7n }))
        : { typeUrl: "/cosmos.auth.v1beta1.BaseAccount", value: new Uint8Array([0x18, 0x05]) };
    if (m.typeName === "google.protobuf.Timestamp")
      return { seconds: variant === 1 ? 1700000000n : 0n, nanos: variant === 1 ? 500 : 0 };
    if (m.typeName === "google.protobuf.Duration") return { seconds: 90n, nanos: variant === 1 ? 5000 : 0 };
    return filled(m, registry, depth + 1, variant);
  }
  if (kind === "enum") {
    const e = (f as { enum: { values: { number: number }[] } }).enum;
    return variant === 1 ? e.values[e.values.length - 1].number : 99;
  }
  const scalar = (f as { scalar: ScalarType }).scalar;
  switch (scalar) {
    case ScalarType.STRING:
      return variant === 1 ? "1234567" : 'a "quoted" \\ line\nsep \u2028 é \u0001';
    case ScalarType.BYTES:
      return variant === 1
        ? new Uint8Array([0, 1, 254, 255])
        : new TextEncoder().encode("12500000000000000000");
    case ScalarType.BOOL:
      return variant === 1;
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return variant === 1 ? -9007199254740993n : 0n;
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return variant === 1 ? 18446744073709551615n : 0n;
    case ScalarType.FLOAT:
    case ScalarType.DOUBLE:
      return variant === 1 ? 0.1 : Number.NaN;
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return variant === 1 ? -5 : 0;
    default:
      return variant === 1 ? 4294967295 : 0;
  }
}
