import { readFileSync } from "node:fs";
import { writeFileAtomic } from "@chaind/core/atomic-file";

/** The account prefix of a genesis that names none (ours, as `cosmos` is Cosmos Hub's). */
export const DEFAULT_BECH32_PREFIX = "sdk";

/**
 * Consensus parameters kept in genesis, as CometBFT's genesis JSON writes them (64-bit integers as strings); the
 * embedded producer enforces the block limits, CometBFT all of them.
 */
export interface ConsensusParams {
  block: { max_bytes: string; max_gas: string };
  evidence: { max_age_num_blocks: string; max_age_duration: string; max_bytes: string };
  validator: { pub_key_types: string[] };
  version: { app: string };
  abci: { vote_extensions_enable_height: string };
}

/**
 * The genesis document as chaind holds it: Cosmos SDK 0.50's AppGenesis shape (its consensus params and validators
 * under `consensus`). The file is written in CometBFT's shape (writeGenesis), and either shape is read.
 */
export interface GenesisDoc {
  app_name: string;
  app_version: string;
  genesis_time: string;
  chain_id: string;
  /** Our addition to the Cosmos shape: the chain's bech32 account prefix ("sdk" when absent). */
  bech32_prefix?: string;
  initial_height: number;
  app_hash: string | null;
  app_state: Record<string, unknown>;
  consensus: { params: ConsensusParams; validators?: unknown[] };
}

/** CometBFT v0.38's defaults, with the SDK's 21 MiB (22020096 bytes) blocks. */
export function defaultConsensusParams(): ConsensusParams {
  return {
    block: { max_bytes: "22020096", max_gas: "-1" },
    evidence: { max_age_num_blocks: "100000", max_age_duration: "172800000000000", max_bytes: "1048576" },
    validator: { pub_key_types: ["ed25519"] },
    version: { app: "0" },
    abci: { vote_extensions_enable_height: "0" },
  };
}

/** Params as a file gives them, each section filled in from the defaults where it is absent. */
function completeParams(given: Partial<ConsensusParams> | undefined): ConsensusParams {
  const d = defaultConsensusParams();
  return {
    block: { ...d.block, ...given?.block },
    evidence: { ...d.evidence, ...given?.evidence },
    validator: { ...d.validator, ...given?.validator },
    version: { ...d.version, ...given?.version },
    abci: { ...d.abci, ...given?.abci },
  };
}

/** The genesis file as CometBFT's GenesisDoc reads it, as opposed to the shape chaind holds. */
interface CometGenesisFields {
  consensus_params?: Partial<ConsensusParams>;
  validators?: unknown[];
}

const CHAIN_ID_RE = /^[a-zA-Z0-9][a-zA-Z0-9._-]{0,49}$/;

/** Checks the shape that every module relies on before it reads its own section. */
export function validateGenesisShape(doc: unknown, source: string): GenesisDoc {
  const fail = (why: string): never => {
    throw new Error(`invalid genesis ${source}: ${why}`);
  };
  if (doc === null || typeof doc !== "object") fail("not a JSON object");
  const g = doc as Partial<Omit<GenesisDoc, "initial_height">> &
    CometGenesisFields & { initial_height?: unknown };
  if (typeof g.chain_id !== "string" || !CHAIN_ID_RE.test(g.chain_id))
    fail(`chain_id ${JSON.stringify(g.chain_id)} must be 1-50 letters, digits, '.', '_' or '-'`);
  if (typeof g.genesis_time !== "string" || Number.isNaN(Date.parse(g.genesis_time)))
    fail("genesis_time must be an RFC 3339 time");
  // CometBFT writes it as a string, the SDK as a number; CometBFT reads 0 (`export --for-zero-height`) as 1.
  const raw = g.initial_height ?? 1;
  const given =
    typeof raw === "string" && /^\d{1,16}$/.test(raw)
      ? Number(raw)
      : typeof raw === "number"
        ? raw
        : Number.NaN;
  const ih = given === 0 ? 1 : given;
  if (!Number.isSafeInteger(ih) || ih < 1) fail("initial_height must be a positive integer");
  if (g.app_hash && !/^([0-9a-fA-F]{2})+$/.test(g.app_hash)) fail("app_hash must be hex");
  if (g.app_state === null || typeof g.app_state !== "object") fail("app_state must be an object");
  const params = completeParams(g.consensus_params ?? g.consensus?.params);
  const validators = g.validators ?? g.consensus?.validators;
  return {
    app_name: g.app_name ?? "chaind",
    app_version: g.app_version ?? "",
    genesis_time: g.genesis_time as string,
    chain_id: g.chain_id as string,
    bech32_prefix: typeof g.bech32_prefix === "string" ? g.bech32_prefix : DEFAULT_BECH32_PREFIX,
    initial_height: ih,
    app_hash: g.app_hash ?? null,
    app_state: g.app_state as Record<string, unknown>,
    consensus: { params, ...(validators ? { validators } : {}) },
  };
}

export function readGenesis(path: string): GenesisDoc {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new Error(
      `cannot read genesis ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`invalid genesis ${path}: ${(e as Error).message}`);
  }
  return validateGenesisShape(doc, path);
}

/**
 * The genesis file's JSON in CometBFT's GenesisDoc shape (`initial_height` a string, `consensus_params` and
 * `validators` at the top, `app_hash` hex), which stock `cometbft` reads, with the SDK's `app_name` and
 * `app_version` and our `bech32_prefix` beside (CometBFT passes over them). Cosmos SDK 0.50 reads this shape too.
 */
export function genesisFileJson(doc: GenesisDoc): string {
  const file = {
    app_name: doc.app_name,
    app_version: doc.app_version,
    genesis_time: doc.genesis_time,
    chain_id: doc.chain_id,
    bech32_prefix: doc.bech32_prefix,
    initial_height: String(doc.initial_height),
    app_hash: doc.app_hash ?? "",
    consensus_params: doc.consensus.params,
    validators: doc.consensus.validators ?? [],
    app_state: doc.app_state,
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** Written beside and renamed over, so a crash never leaves half a genesis file. */
export function writeGenesis(path: string, doc: GenesisDoc): void {
  writeFileAtomic(path, genesisFileJson(doc), { mode: 0o644 });
}
