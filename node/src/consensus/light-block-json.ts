import { create } from "@bufbuild/protobuf";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import {
  type BlockID,
  BlockIDSchema,
  type Commit,
  CommitSchema,
  type Header,
  HeaderSchema,
} from "@chaind/proto/tendermint/types/types_pb";
import { LightClientError } from "./light-client.js";
import type { WeightedValidator } from "./validator-set-hash.js";

/**
 * Readers of what CometBFT's RPC answers (`commit`, `validators`), the shapes comet-json.ts writes: hashes in
 * upper-case hex, signatures and keys in base64, 64-bit integers as strings, times in RFC 3339 with nanoseconds.
 * Anything else is a LightClientError naming the field.
 */
type Json = Record<string, unknown>;

const bad = (field: string, v: unknown) =>
  new LightClientError(`the node's answer has an invalid ${field}: ${JSON.stringify(v)?.slice(0, 80)}`);

function obj(v: unknown, field: string): Json {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw bad(field, v);
  return v as Json;
}

function hex(v: unknown, field: string): Uint8Array {
  if (typeof v !== "string" || !/^([0-9A-Fa-f]{2})*$/.test(v)) throw bad(field, v);
  return new Uint8Array(Buffer.from(v, "hex"));
}

function b64(v: unknown, field: string): Uint8Array {
  if (typeof v !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(v)) throw bad(field, v);
  return new Uint8Array(Buffer.from(v, "base64"));
}

function int(v: unknown, field: string): bigint {
  if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v !== "string" || !/^-?\d{1,19}$/.test(v)) throw bad(field, v);
  return BigInt(v);
}

/** RFC 3339 in UTC with up to nine fraction digits, as Go prints a time. */
function time(v: unknown, field: string): Timestamp {
  const m = typeof v === "string" ? /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(v) : null;
  if (!m) throw bad(field, v);
  const ms = Date.parse(`${m[1]}Z`);
  if (Number.isNaN(ms)) throw bad(field, v);
  return create(TimestampSchema, {
    seconds: BigInt(Math.floor(ms / 1000)),
    nanos: Number((m[2] ?? "").padEnd(9, "0")),
  });
}

function blockId(v: unknown, field: string): BlockID {
  const o = obj(v, field);
  const parts = obj(o.parts, `${field}.parts`);
  return create(BlockIDSchema, {
    hash: hex(o.hash, `${field}.hash`),
    partSetHeader: {
      total: Number(int(parts.total, `${field}.parts.total`)),
      hash: hex(parts.hash, `${field}.parts.hash`),
    },
  });
}

export function headerFromJson(v: unknown): Header {
  const h = obj(v, "header");
  const version = obj(h.version, "header.version");
  if (typeof h.chain_id !== "string") throw bad("header.chain_id", h.chain_id);
  const field = (name: string) => hex(h[name], `header.${name}`);
  return create(HeaderSchema, {
    version: {
      block: int(version.block, "header.version.block"),
      app: int(version.app ?? "0", "header.version.app"),
    },
    chainId: h.chain_id,
    height: int(h.height, "header.height"),
    time: time(h.time, "header.time"),
    lastBlockId: blockId(h.last_block_id, "header.last_block_id"),
    lastCommitHash: field("last_commit_hash"),
    dataHash: field("data_hash"),
    validatorsHash: field("validators_hash"),
    nextValidatorsHash: field("next_validators_hash"),
    consensusHash: field("consensus_hash"),
    appHash: field("app_hash"),
    lastResultsHash: field("last_results_hash"),
    evidenceHash: field("evidence_hash"),
    proposerAddress: field("proposer_address"),
  });
}

export function commitFromJson(v: unknown): Commit {
  const c = obj(v, "commit");
  if (!Array.isArray(c.signatures)) throw bad("commit.signatures", c.signatures);
  return create(CommitSchema, {
    height: int(c.height, "commit.height"),
    round: Number(int(c.round ?? 0, "commit.round")),
    blockId: blockId(c.block_id, "commit.block_id"),
    signatures: c.signatures.map((raw, i) => {
      const s = obj(raw, `commit.signatures[${i}]`);
      const flag = Number(int(s.block_id_flag, `commit.signatures[${i}].block_id_flag`));
      return {
        blockIdFlag: flag,
        validatorAddress: hex(s.validator_address ?? "", `commit.signatures[${i}].validator_address`),
        timestamp: time(s.timestamp, `commit.signatures[${i}].timestamp`),
        signature:
          s.signature === null ? new Uint8Array() : b64(s.signature, `commit.signatures[${i}].signature`),
      };
    }),
  });
}

/** The validators of a `validators` answer, in its order: ed25519 keys and voting powers. */
export function validatorsFromJson(v: unknown): WeightedValidator[] {
  const o = obj(v, "validators answer");
  if (!Array.isArray(o.validators)) throw bad("validators", o.validators);
  return o.validators.map((raw, i) => {
    const val = obj(raw, `validators[${i}]`);
    const key = obj(val.pub_key, `validators[${i}].pub_key`);
    if (key.type !== "tendermint/PubKeyEd25519") throw bad(`validators[${i}].pub_key.type`, key.type);
    return {
      pubKey: b64(key.value, `validators[${i}].pub_key.value`),
      votingPower: int(val.voting_power, `validators[${i}].voting_power`),
    };
  });
}
