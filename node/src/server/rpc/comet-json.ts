import { toHexUpper } from "@chaind/core/hex";
import type { Block } from "@chaind/proto/tendermint/types/block_pb";
import type { BlockID, BlockMeta, Commit, Header } from "@chaind/proto/tendermint/types/types_pb";
import type { AbciEvent } from "../../app/events.js";
import type { TxResult } from "../../app/tx-result.js";
import { rfc3339 } from "../../consensus/rfc3339.js";

/** CometBFT's JSON: hashes as upper-case hex, bytes as base64, 64-bit integers as strings. */
export const hexUpper = (b: Uint8Array | undefined) => toHexUpper(b ?? new Uint8Array());
// A view of the bytes, not a copy: a block's txs can be megabytes each.
export const base64 = (b: Uint8Array | undefined) =>
  b ? Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("base64") : "";

/** The length of `bytes` bytes as base64 text, known before any is encoded. */
export const base64Length = (bytes: number) => 4 * Math.ceil(bytes / 3);

export function blockIdJson(id: BlockID | undefined) {
  return {
    hash: hexUpper(id?.hash),
    parts: { total: id?.partSetHeader?.total ?? 0, hash: hexUpper(id?.partSetHeader?.hash) },
  };
}

export function headerJson(h: Header | undefined) {
  return {
    version: { block: String(h?.version?.block ?? 0n), app: String(h?.version?.app ?? 0n) },
    chain_id: h?.chainId ?? "",
    height: String(h?.height ?? 0n),
    time: rfc3339(h?.time),
    last_block_id: blockIdJson(h?.lastBlockId),
    last_commit_hash: hexUpper(h?.lastCommitHash),
    data_hash: hexUpper(h?.dataHash),
    validators_hash: hexUpper(h?.validatorsHash),
    next_validators_hash: hexUpper(h?.nextValidatorsHash),
    consensus_hash: hexUpper(h?.consensusHash),
    app_hash: hexUpper(h?.appHash),
    last_results_hash: hexUpper(h?.lastResultsHash),
    evidence_hash: hexUpper(h?.evidenceHash),
    proposer_address: hexUpper(h?.proposerAddress),
  };
}

export function commitJson(c: Commit | undefined) {
  return {
    height: String(c?.height ?? 0n),
    round: c?.round ?? 0,
    block_id: blockIdJson(c?.blockId),
    signatures: (c?.signatures ?? []).map((s) => ({
      block_id_flag: s.blockIdFlag,
      validator_address: hexUpper(s.validatorAddress),
      timestamp: rfc3339(s.timestamp),
      signature: base64(s.signature),
    })),
  };
}

export function blockJson(b: Block) {
  return {
    header: headerJson(b.header),
    data: { txs: (b.data?.txs ?? []).map(base64) },
    evidence: { evidence: [] },
    last_commit: commitJson(b.lastCommit),
  };
}

export function blockMetaJson(m: BlockMeta) {
  return {
    block_id: blockIdJson(m.blockId),
    block_size: String(m.blockSize),
    header: headerJson(m.header),
    num_txs: String(m.numTxs),
  };
}

export function eventsJson(events: readonly AbciEvent[]) {
  return events.map((e) => ({
    type: e.type,
    attributes: e.attributes.map((a) => ({ key: a.key, value: a.value, index: a.index })),
  }));
}

/** ExecTxResult / ResponseCheckTx as CometBFT 0.38 prints it (code a JSON number, gas as strings). */
export function txResultJson(r: TxResult) {
  return {
    code: r.code,
    data: base64(r.data),
    log: r.log,
    info: r.info,
    gas_wanted: String(r.gasWanted),
    gas_used: String(r.gasUsed),
    events: eventsJson(r.events),
    codespace: r.codespace,
  };
}

/** An ed25519 public key as CometBFT's amino JSON prints it. */
export function pubKeyJson(key: Uint8Array) {
  return { type: "tendermint/PubKeyEd25519", value: base64(key) };
}

/** A validator as CometBFT prints one in `status`, `validators` and `genesis`. */
export function validatorJson(v: { address: Uint8Array; pubKey: Uint8Array }, votingPower: bigint) {
  return {
    address: hexUpper(v.address),
    pub_key: pubKeyJson(v.pubKey),
    voting_power: String(votingPower),
    proposer_priority: "0",
  };
}
