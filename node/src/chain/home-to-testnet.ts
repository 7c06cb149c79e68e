import { existsSync, readFileSync } from "node:fs";
import { writeFileAtomic } from "@chaind/core/atomic-file";
import { silentLogger } from "@chaind/core/logger";
import { AddressCodec } from "../app/address-codec.js";
import { DEFAULT_BECH32_PREFIX, readGenesis, writeGenesis } from "../config/genesis.js";
import { readHomeConfig } from "../config/home-config.js";
import type { HomeLayout } from "../config/home-layout.js";
import { readPrivValidatorKey } from "../config/priv-validator-key.js";
import { setTomlLine } from "../config/toml-edit.js";
import { BlockStore } from "../consensus/block-store.js";
import { CometBlockStoreReader } from "../consensus/comet-block-store-reader.js";
import { signStateJson } from "../consensus/sign-state.js";
import { pruningOptions } from "../store/pruning.js";
import { type BatchOp, StateStore } from "../store/state-store.js";
import { GENESIS_KEY } from "../store/state-store-keys.js";
import { type GenesisHeader, genesisHeader, readGenesisRecord } from "./genesis-record.js";
import { testnetConversionOp } from "./testnet-conversion-record.js";

export interface TestnetRequest {
  newChainId: string;
  /** The operator's account address, bech32 with the chain's prefix. */
  operator: string;
  /** `--trigger-testnet-upgrade`: the plan to schedule at the next height. */
  upgradeToTrigger?: string;
}

/**
 * A CometBFT home goes on under the embedded engine: its block store starts at the app's height with CometBFT's
 * block of that height (its txs' results stay in CometBFT's state.db), so the first testnet block names it as
 * the block before, as it would under CometBFT.
 */
async function cometBlockBootstrap(layout: HomeLayout, height: number): Promise<BatchOp[]> {
  const comet = await CometBlockStoreReader.open(layout.dataDir);
  if (!comet) throw new TestnetRefusedError(`no CometBFT block store in ${layout.dataDir}`);
  try {
    const [meta, block] = [await comet.meta(height), await comet.block(height)];
    if (!meta || !block)
      throw new TestnetRefusedError(
        `CometBFT's block store holds blocks ${comet.base}-${comet.height}, not the app's height ${height}`,
      );
    return BlockStore.bootstrapOps(block, meta, { height, txResults: [], events: [] });
  } finally {
    await comet.close();
  }
}

/** A request `in-place-testnet` refuses: the home is left as it was. */
export class TestnetRefusedError extends Error {}

/**
 * Turns a stopped home into a one-validator testnet of `newChainId`: the chain id changes in the
 * kept genesis record, genesis.json and client.toml, and the state changes wait as a pending record for the next
 * block, which commits them with its own (so every app hash up to the home's height stays the original chain's,
 * and the first testnet block's hash covers the conversion). The sign state starts over at the home's height,
 * since the validator now signs for another chain id. A home CometBFT drove switches to the embedded engine.
 */
export async function convertHomeToTestnet(
  layout: HomeLayout,
  req: TestnetRequest,
): Promise<{ height: number; oldChainId: string; droppedBlock?: number }> {
  if (req.newChainId.trim() === "" || /\s/.test(req.newChainId))
    throw new TestnetRefusedError(`invalid new chain id ${JSON.stringify(req.newChainId)}`);
  if (req.upgradeToTrigger !== undefined && req.upgradeToTrigger.trim() === "")
    throw new TestnetRefusedError("--trigger-testnet-upgrade needs an upgrade name");
  if (!existsSync(layout.dbDir))
    throw new TestnetRefusedError(`no chain to convert: no database at ${layout.dbDir}`);
  const config = readHomeConfig(layout);
  const fromComet = config.node.consensusEngine === "cometbft";
  const signer = readPrivValidatorKey(layout.privValidatorKey);
  const store = await StateStore.open(
    { dir: layout.dbDir, pruning: pruningOptions(config.app) },
    { logger: silentLogger },
  );
  try {
    const height = store.latestHeight;
    if (height === 0) throw new TestnetRefusedError("no chain to convert: the home has no committed block");
    // Under CometBFT the app's database holds no blocks: they come from CometBFT's store.
    const bootstrap = fromComet ? await cometBlockBootstrap(layout, height) : [];
    // A block saved but never applied (a halt, a kill, or a copy taken while the node ran) is the real chain's
    // next block, not committed state: the testnet makes its own block of that height instead.
    const blocks = fromComet ? undefined : await BlockStore.open(store);
    const dropped = blocks?.unappliedHeight;
    const dropOps = blocks && dropped !== undefined ? await blocks.blockRemovalOps(dropped) : [];
    const kept: GenesisHeader =
      (await readGenesisRecord(store)) ?? genesisHeader(readGenesis(layout.genesisJson));
    if (kept.chain_id === req.newChainId)
      throw new TestnetRefusedError(
        `the new chain id must differ from the current one (${kept.chain_id}): a testnet must not sign for the real chain`,
      );
    const prefix = kept.bech32_prefix ?? DEFAULT_BECH32_PREFIX;
    let operator: Uint8Array;
    try {
      operator = new AddressCodec(prefix).fromString(req.operator, "operator address");
    } catch (e) {
      throw new TestnetRefusedError(`invalid operator address: ${(e as Error).message}`);
    }
    const record: GenesisHeader = { ...kept, chain_id: req.newChainId };
    await store.db.batch(
      [
        { type: "put", key: GENESIS_KEY, value: new TextEncoder().encode(JSON.stringify(record)) },
        testnetConversionOp({
          operator,
          validatorPubKey: signer.pubKey,
          upgradeToTrigger: req.upgradeToTrigger,
        }),
        ...bootstrap,
        ...dropOps,
      ],
      { sync: true },
    );
    if (fromComet) {
      const text = readFileSync(layout.configToml, "utf8");
      writeFileAtomic(layout.configToml, setTomlLine(text, null, "consensus_engine", '"embedded"'));
    }
    if (existsSync(layout.genesisJson)) {
      const doc = readGenesis(layout.genesisJson);
      writeGenesis(layout.genesisJson, { ...doc, chain_id: req.newChainId });
    }
    if (existsSync(layout.clientToml)) {
      const text = readFileSync(layout.clientToml, "utf8");
      writeFileAtomic(layout.clientToml, setTomlLine(text, null, "chain-id", JSON.stringify(req.newChainId)));
    }
    writeFileAtomic(layout.privValidatorState, signStateJson({ height: BigInt(height), round: 0, step: 0 }), {
      durable: true,
    });
    return { height, oldChainId: kept.chain_id, droppedBlock: dropped };
  } finally {
    await store.close();
  }
}
