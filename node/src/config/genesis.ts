import { readFileSync } from "node:fs";
import { writeFileAtomic } from "@chaind/core/atomic-file";

/** The account prefix of a genesis that names none (ours, as `cosmos` is Cosmos Hub's). */
export const DEFAULT_BECH32_PREFIX = "sdk";

/** Consensus parameters kept in genesis (CometBFT names); the embedded producer enforces the block limits. */
export interface ConsensusParams {
  block: { max_bytes: string; max_gas: string };
}

/** The genesis document, in the Cosmos SDK 0.50 AppGenesis shape. */
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

export function defaultConsensusParams(): ConsensusParams {
  return { block: { max_bytes: "22020096", max_gas: "-1" } };
}

const CHAIN_ID_RE = /^[a-zA-Z0-9][a-zA-Z0-9._-]{0,49}$/;

/** Checks the shape that every module relies on before it reads its own section. */
export function validateGenesisShape(doc: unknown, source: string): GenesisDoc {
  const fail = (why: string): never => {
    throw new Error(`invalid genesis ${source}: ${why}`);
  };
  if (doc === null || typeof doc !== "object") fail("not a JSON object");
  const g = doc as Partial<GenesisDoc>;
  if (typeof g.chain_id !== "string" || !CHAIN_ID_RE.test(g.chain_id))
    fail(`chain_id ${JSON.stringify(g.chain_id)} must be 1-50 letters, digits, '.', '_' or '-'`);
  if (typeof g.genesis_time !== "string" || Number.isNaN(Date.parse(g.genesis_time)))
    fail("genesis_time must be an RFC 3339 time");
  // CometBFT reads 0 (what `export --for-zero-height` writes) as 1.
  const given = Number(g.initial_height ?? 1);
  const ih = given === 0 ? 1 : given;
  if (!Number.isSafeInteger(ih) || ih < 1) fail("initial_height must be a positive integer");
  if (g.app_hash && !/^([0-9a-fA-F]{2})+$/.test(g.app_hash)) fail("app_hash must be hex");
  if (g.app_state === null || typeof g.app_state !== "object") fail("app_state must be an object");
  const params = g.consensus?.params ?? defaultConsensusParams();
  return {
    app_name: g.app_name ?? "chaind",
    app_version: g.app_version ?? "",
    genesis_time: g.genesis_time as string,
    chain_id: g.chain_id as string,
    bech32_prefix: typeof g.bech32_prefix === "string" ? g.bech32_prefix : DEFAULT_BECH32_PREFIX,
    initial_height: ih,
    app_hash: g.app_hash ?? null,
    app_state: g.app_state as Record<string, unknown>,
    consensus: { ...g.consensus, params },
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

/** Written beside and renamed over, so a crash never leaves half a genesis file. */
export function writeGenesis(path: string, doc: GenesisDoc): void {
  writeFileAtomic(path, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o644 });
}
