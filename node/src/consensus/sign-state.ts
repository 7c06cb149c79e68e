import { existsSync, readFileSync } from "node:fs";
import { writeFileAtomicDurably } from "@chaind/core/atomic-file";

/** CometBFT's signing steps, in the order they come within a round. */
export enum SignStep {
  Propose = 1,
  Prevote = 2,
  Precommit = 3,
}

/** What the validator signed last: CometBFT FilePV's `priv_validator_state.json`. */
export interface LastSigned {
  height: bigint;
  round: number;
  step: number;
  signature?: Uint8Array;
  signBytes?: Uint8Array;
}

/** The validator would sign something that contradicts what it signed before: it must not. */
export class DoubleSignError extends Error {
  readonly exitCode = 1;
}

const FRESH: LastSigned = { height: 0n, round: 0, step: 0 };

/** The file's JSON as CometBFT writes it: height as a string, signature base64, sign bytes upper-case hex. */
export function signStateJson(s: LastSigned): string {
  const json: Record<string, unknown> = { height: String(s.height), round: s.round, step: s.step };
  if (s.signature?.length) json.signature = Buffer.from(s.signature).toString("base64");
  if (s.signBytes?.length) json.signbytes = Buffer.from(s.signBytes).toString("hex").toUpperCase();
  return `${JSON.stringify(json, null, 2)}\n`;
}

function parse(path: string, text: string): LastSigned {
  const bad = (why: string) => new DoubleSignError(`cannot read the validator's sign state ${path}: ${why}`);
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(text);
  } catch (e) {
    throw bad((e as Error).message);
  }
  if (typeof j !== "object" || j === null) throw bad("not a JSON object");
  const height = typeof j.height === "string" && /^\d+$/.test(j.height) ? BigInt(j.height) : undefined;
  if (height === undefined) throw bad(`height must be a decimal string, got ${JSON.stringify(j.height)}`);
  const small = (v: unknown, name: string) => {
    if (v === undefined) return 0;
    if (!Number.isInteger(v) || (v as number) < 0) throw bad(`${name} must be a non-negative integer`);
    return v as number;
  };
  const signature = j.signature === undefined ? undefined : Buffer.from(String(j.signature), "base64");
  const signBytes = j.signbytes === undefined ? undefined : Buffer.from(String(j.signbytes), "hex");
  return { height, round: small(j.round, "round"), step: small(j.step, "step"), signature, signBytes };
}

/**
 * The validator's last-signed record, kept in CometBFT's file and format so either engine (and CometBFT's own
 * FilePV) reads the other's. A signature is recorded durably before it is handed out, and one that would
 * contradict the record (a lower height, round or step; or other bytes at the same one) is refused: that is
 * what keeps a restarted, rolled-back or restored node from signing a second block at a height it signed.
 */
export class SignState {
  private constructor(
    readonly path: string,
    private last: LastSigned,
  ) {}

  /** Reads the file; a missing one means nothing signed yet. */
  static open(path: string): SignState {
    return new SignState(path, existsSync(path) ? parse(path, readFileSync(path, "utf8")) : FRESH);
  }

  get lastSigned(): Readonly<LastSigned> {
    return this.last;
  }

  /**
   * The validator never signed past a node's blocks unless they were taken back (`rollback --hard`, or data
   * restored from an older copy) after it signed: making blocks again would sign a second one at such a height.
   */
  checkNotAhead(blocksHeight: number): void {
    const signed = this.last.height;
    if (signed > BigInt(blocksHeight))
      throw new DoubleSignError(
        `the validator signed a block at height ${signed} (${this.path}) but this node's blocks end at height ${blocksHeight}: ` +
          "they were rolled back or restored from an older copy after it signed, and producing blocks again would sign a second block at that height; " +
          "restore the newer data, or, only on a chain no other node has seen, reset the sign state with `comet unsafe-reset-priv-validator`",
      );
  }

  /**
   * The signature of `signBytes` at (height, round, step): made by `sign` and recorded first, or, when the
   * record holds these very bytes at that step, the signature recorded then (CometBFT re-signs nothing).
   */
  async sign(
    height: bigint,
    round: number,
    step: SignStep,
    signBytes: Uint8Array,
    sign: (bytes: Uint8Array) => Uint8Array,
  ): Promise<Uint8Array> {
    const last = this.last;
    const at = `height ${height} round ${round} step ${step}`;
    const recorded = `${this.path} records height ${last.height} round ${last.round} step ${last.step}`;
    if (
      last.height > height ||
      (last.height === height && (last.round > round || (last.round === round && last.step > step)))
    )
      throw new DoubleSignError(`refusing to sign at ${at}: ${recorded} (a regression would sign twice)`);
    if (last.height === height && last.round === round && last.step === step) {
      if (last.signature && last.signBytes && Buffer.from(last.signBytes).equals(Buffer.from(signBytes)))
        return last.signature;
      throw new DoubleSignError(
        `refusing to sign at ${at}: ${recorded} with other sign bytes (conflicting data: another block was signed at this height)`,
      );
    }
    const signature = sign(signBytes);
    const next: LastSigned = { height, round, step, signature, signBytes };
    await writeFileAtomicDurably(this.path, signStateJson(next), { mode: 0o600 });
    this.last = next;
    return signature;
  }
}
