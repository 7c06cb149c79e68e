import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { toHexUpper } from "@chaind/core/hex";
import type { Commit } from "@chaind/proto/tendermint/types/types_pb";
import { rfc3339 } from "../../consensus/rfc3339.js";
import { validatorJson } from "./comet-json.js";

/**
 * What the embedded engine's consensus state is between blocks, the only place its one validator waits: block
 * `height - 1` committed with its own precommit, `height` at round 0 in CometBFT's NewHeight step until
 * timeout_commit has passed. Nothing is proposed or voted for `height` yet, so its vote sets are empty.
 */
export interface RoundState {
  /** The height being worked on: the latest block's plus one. */
  height: number;
  /** When the latest block committed (its validator's precommit time), and when `height` starts. */
  commitTimeMs: number;
  startTimeMs: number;
  validator: { address: Uint8Array; pubKey: Uint8Array };
  votingPower: bigint;
  /** The latest block's commit, or undefined before the first block. */
  lastCommit: Commit | undefined;
}

/** CometBFT's RoundStepNewHeight. */
const STEP_NEW_HEIGHT = 1;

const timeJson = (ms: number) => rfc3339(timestampFromMs(ms));

/** CometBFT's short form of a hash in logs and vote strings: its first 6 bytes, zero-padded, as hex. */
function fingerprint(b: Uint8Array | undefined): string {
  const six = new Uint8Array(6);
  six.set((b ?? new Uint8Array()).subarray(0, 6));
  return toHexUpper(six);
}

/** A vote set's bit array as CometBFT prints it with its tally: `BA{1:x} 10/10 = 1.00`. */
function bitArrayString(voted: readonly boolean[], power: bigint): string {
  const bits = voted.map((v) => (v ? "x" : "_")).join("");
  const sum = voted.filter(Boolean).length === 0 ? 0n : power;
  const fraction = power === 0n ? 0 : Number(sum) / Number(power);
  return `BA{${voted.length}:${bits}} ${sum}/${power} = ${fraction.toFixed(2)}`;
}

/** The one validator's precommits of a commit, as CometBFT's vote strings. */
function precommitStrings(c: Commit): string[] {
  return c.signatures.map((s, i) =>
    s.signature.length === 0
      ? "nil-Vote"
      : `Vote{${i}:${fingerprint(s.validatorAddress)} ${c.height}/${String(c.round).padStart(2, "0")}/SIGNED_MSG_TYPE_PRECOMMIT(Precommit) ${fingerprint(c.blockId?.hash)} ${fingerprint(s.signature)} ${fingerprint(undefined)} @ ${rfc3339(s.timestamp)}}`,
  );
}

/** The vote sets of `height`'s round 0: nobody has voted yet. */
function emptyRoundVotes(power: bigint) {
  return {
    round: 0,
    prevotes: ["nil-Vote"],
    prevotes_bit_array: bitArrayString([false], power),
    precommits: ["nil-Vote"],
    precommits_bit_array: bitArrayString([false], power),
  };
}

/** `consensus_state`'s round_state (CometBFT's RoundStateSimple). */
export function roundStateSimpleJson(rs: RoundState) {
  return {
    "height/round/step": `${rs.height}/0/${STEP_NEW_HEIGHT}`,
    start_time: timeJson(rs.startTimeMs),
    proposal_block_hash: "",
    locked_block_hash: "",
    valid_block_hash: "",
    height_vote_set: [emptyRoundVotes(rs.votingPower)],
    proposer: { address: toHexUpper(rs.validator.address), index: 0 },
  };
}

/** `dump_consensus_state`'s round_state (CometBFT's RoundState). */
export function roundStateJson(rs: RoundState) {
  const validator = validatorJson(rs.validator, rs.votingPower);
  const validators = { validators: [validator], proposer: validator };
  const last = rs.lastCommit;
  return {
    height: String(rs.height),
    round: 0,
    step: STEP_NEW_HEIGHT,
    start_time: timeJson(rs.startTimeMs),
    commit_time: timeJson(rs.commitTimeMs),
    validators,
    proposal: null,
    proposal_block: null,
    proposal_block_parts: null,
    locked_round: -1,
    locked_block: null,
    locked_block_parts: null,
    valid_round: -1,
    valid_block: null,
    valid_block_parts: null,
    votes: [emptyRoundVotes(rs.votingPower)],
    commit_round: -1,
    last_commit: last
      ? {
          votes: precommitStrings(last),
          votes_bit_array: bitArrayString(
            last.signatures.map((s) => s.signature.length > 0),
            rs.votingPower,
          ),
          peer_maj_23s: {},
        }
      : null,
    last_validators: last ? validators : { validators: [], proposer: null },
    triggered_timeout_precommit: false,
  };
}
