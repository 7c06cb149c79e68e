import { create, type DescMessage, fromBinary, toBinary } from "@bufbuild/protobuf";
import { type Any, DurationSchema, TimestampSchema } from "@bufbuild/protobuf/wkt";
import { typeReach } from "./message-type-reach.js";
import { typeUrlToSdk } from "./namespace.js";
import type { TypeRegistry } from "./type-registry.js";

/**
 * The message-typed fields Cosmos SDK 0.50 and CometBFT 0.38 declare `(gogoproto.nullable) = false`, by message:
 * Go holds them as values, not pointers, so gogoproto writes them even when empty (an empty message as a
 * zero-length field; an stdtime one as Go's zero time, 0001-01-01T00:00:00Z). Our messages leave them out when
 * unset; clients that decode a missing time as "now" (Telescope, InterchainJS) then read the wrong thing.
 * Singular fields only: a repeated field writes nothing when empty either way. Only types an answer can hold are
 * listed (a query's output, or a message a gov proposal packs).
 */
export const NON_NULLABLE: Readonly<Record<string, readonly string[]>> = {
  "sdk.auth.v1beta1.QueryParamsResponse": ["params"],
  "sdk.bank.v1beta1.QuerySupplyOfResponse": ["amount"],
  "sdk.bank.v1beta1.QueryParamsResponse": ["params"],
  "sdk.bank.v1beta1.QueryDenomMetadataResponse": ["metadata"],
  "sdk.bank.v1beta1.MsgUpdateParams": ["params"],
  "sdk.base.tendermint.v1beta1.Block": ["header", "data", "evidence"],
  "sdk.base.tendermint.v1beta1.Header": ["version", "time", "last_block_id"],
  "sdk.gov.v1beta1.Proposal": [
    "final_tally_result",
    "submit_time",
    "deposit_end_time",
    "voting_start_time",
    "voting_end_time",
  ],
  "sdk.gov.v1beta1.DepositParams": ["max_deposit_period"],
  "sdk.gov.v1beta1.VotingParams": ["voting_period"],
  "sdk.gov.v1beta1.QueryProposalResponse": ["proposal"],
  "sdk.gov.v1beta1.QueryVoteResponse": ["vote"],
  "sdk.gov.v1beta1.QueryParamsResponse": ["voting_params", "deposit_params", "tally_params"],
  "sdk.gov.v1beta1.QueryDepositResponse": ["deposit"],
  "sdk.gov.v1beta1.QueryTallyResultResponse": ["tally"],
  "sdk.staking.v1beta1.QueryValidatorResponse": ["validator"],
  "sdk.staking.v1beta1.QueryPoolResponse": ["pool"],
  "sdk.staking.v1beta1.QueryParamsResponse": ["params"],
  "sdk.staking.v1beta1.Commission": ["commission_rates", "update_time"],
  "sdk.staking.v1beta1.Validator": ["description", "unbonding_time", "commission"],
  "sdk.staking.v1beta1.UnbondingDelegationEntry": ["completion_time"],
  "sdk.staking.v1beta1.RedelegationEntry": ["completion_time"],
  "sdk.staking.v1beta1.Params": ["unbonding_time"],
  "sdk.staking.v1beta1.DelegationResponse": ["delegation", "balance"],
  "sdk.staking.v1beta1.RedelegationEntryResponse": ["redelegation_entry"],
  "sdk.staking.v1beta1.RedelegationResponse": ["redelegation"],
  "sdk.staking.v1beta1.MsgCreateValidator": ["description", "commission", "value"],
  "sdk.staking.v1beta1.MsgDelegate": ["amount"],
  "sdk.staking.v1beta1.MsgBeginRedelegate": ["amount"],
  "sdk.staking.v1beta1.MsgBeginRedelegateResponse": ["completion_time"],
  "sdk.staking.v1beta1.MsgUndelegate": ["amount"],
  "sdk.staking.v1beta1.MsgUndelegateResponse": ["completion_time", "amount"],
  "sdk.upgrade.v1beta1.MsgSoftwareUpgrade": ["plan"],
  "sdk.upgrade.v1beta1.Plan": ["time"],
  "tendermint.types.BlockID": ["part_set_header"],
  "tendermint.types.Header": ["version", "time", "last_block_id"],
  "tendermint.types.Commit": ["block_id"],
  "tendermint.types.CommitSig": ["timestamp"],
  "tendermint.types.Block": ["header", "data", "evidence"],
  "tendermint.types.Validator": ["pub_key"],
  "tendermint.p2p.DefaultNodeInfo": ["protocol_version", "other"],
};

/** Go's zero time.Time as a Timestamp: what gogoproto writes for an unset non-nullable stdtime. */
export const GO_ZERO_TIME_SECONDS = -62135596800n;

/**
 * The one time the SDK never leaves at Go's zero time: its NewValidator starts a validator's unbonding_time at
 * the Unix epoch (1970-01-01T00:00:00Z, an empty Timestamp), so a validator that never unbonded answers that.
 */
const UNIX_EPOCH_WHEN_UNSET = new Set(["sdk.staking.v1beta1.Validator.unbonding_time"]);

type Fields = Record<string, unknown>;

/** Whether a message of this type can hold a non-nullable field at any depth (an Any may hold anything). */
const mayReach = typeReach((d) => d.typeName in NON_NULLABLE || d.typeName === "google.protobuf.Any");

/** The value gogoproto writes for an unset non-nullable field of this type. */
function zeroOf(desc: DescMessage, types: TypeRegistry | undefined): unknown {
  if (desc.typeName === TimestampSchema.typeName)
    return create(TimestampSchema, { seconds: GO_ZERO_TIME_SECONDS, nanos: 0 });
  if (desc.typeName === DurationSchema.typeName) return create(DurationSchema);
  return fill(desc, create(desc) as Fields, types);
}

/**
 * The message with every unset non-nullable field (NON_NULLABLE) set as gogoproto writes it, at any depth.
 * Copy on write: the message given is never changed (handlers may answer with objects a store or cache holds),
 * and comes back as it is when nothing was missing. With `types`, the messages packed in Anys are filled and
 * repacked too, as the SDK repacks those it stores (a gov proposal's messages); without, Anys are left as sent
 * (a tx's messages, which the SDK answers with the client's bytes).
 */
export function withNonNullable<T extends object>(desc: DescMessage, msg: T, types?: TypeRegistry): T {
  return fill(desc, msg as Fields, types) as T;
}

function fill(desc: DescMessage, msg: Fields, types: TypeRegistry | undefined): Fields {
  if (desc.typeName === "google.protobuf.Any") return types ? fillAny(msg as unknown as Any, types) : msg;
  if (!mayReach(desc)) return msg;
  const required = NON_NULLABLE[desc.typeName];
  let out = msg;
  const set = (key: string, value: unknown) => {
    if (out === msg) out = { ...msg };
    out[key] = value;
  };
  for (const f of desc.fields) {
    if (f.oneof) {
      const o = msg[f.oneof.localName] as { case?: string; value?: unknown } | undefined;
      if (o?.case !== f.localName || f.fieldKind !== "message") continue;
      const v = fill(f.message, o.value as Fields, types);
      if (v !== o.value) set(f.oneof.localName, { case: o.case, value: v });
      continue;
    }
    const v = msg[f.localName];
    if (f.fieldKind === "message") {
      if (v === undefined || v === null) {
        if (UNIX_EPOCH_WHEN_UNSET.has(`${desc.typeName}.${f.name}`))
          set(f.localName, create(TimestampSchema));
        else if (required?.includes(f.name)) set(f.localName, zeroOf(f.message, types));
      } else {
        const filled = fill(f.message, v as Fields, types);
        if (filled !== v) set(f.localName, filled);
      }
    } else if (f.fieldKind === "list" && f.listKind === "message" && Array.isArray(v)) {
      const items = v.map((item: Fields) => fill(f.message, item, types));
      if (items.some((item, i) => item !== v[i])) set(f.localName, items);
    }
  }
  return out;
}

function fillAny(any: Any, types: TypeRegistry): Fields {
  if (!any.typeUrl) return any as unknown as Fields;
  const desc = types.registry.getMessage(typeUrlToSdk(any.typeUrl).name);
  if (!desc || !mayReach(desc)) return any as unknown as Fields;
  const inner = fromBinary(desc, any.value);
  const filled = fill(desc, inner as unknown as Fields, types);
  if (filled === (inner as unknown as Fields)) return any as unknown as Fields;
  return { ...any, value: toBinary(desc, filled as never) } as unknown as Fields;
}
