import { existsSync } from "node:fs";
import { cometAddress } from "@chaind/core/comet-address";
import { toHexUpper } from "@chaind/core/hex";
import type { Logger } from "@chaind/core/logger";
import { Context } from "../app/context.js";
import { EventManager } from "../app/events.js";
import { GasMeter } from "../app/gas-meter.js";
import { DEFAULT_BECH32_PREFIX, type GenesisDoc, readGenesis } from "../config/genesis.js";
import { HomeLayout } from "../config/home-layout.js";
import { BlockStore } from "../consensus/block-store.js";
import type { StakingKeeper } from "../modules/staking/staking-keeper.js";
import { CacheMultiStore } from "../store/cache-multi-store.js";
import { PRUNING_NOTHING } from "../store/pruning.js";
import { StateStore } from "../store/state-store.js";
import type { AppDefinition } from "./app-definition.js";
import { genesisHeader, readGenesisRecord } from "./genesis-record.js";
import { prepareForZeroHeight } from "./zero-height.js";

export interface ExportOptions {
  home: string;
  definition: AppDefinition;
  /** A retained height; the latest when absent. */
  height?: number;
  forZeroHeight: boolean;
  /** Valoper addresses that stay unjailed with `forZeroHeight`; empty: nobody is jailed. */
  jailAllowedAddrs: readonly string[];
  /** Module names whose state is exported; empty: every module. */
  modulesToExport: readonly string[];
}

/** A home that cannot be exported: no chain data, or a module name that does not exist. One line each. */
export class ExportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ExportError";
  }
}

/** A validator in genesis `consensus.validators`, as CometBFT's genesis lists it. */
export interface GenesisValidator {
  address: string;
  pub_key: { type: "tendermint/PubKeyEd25519"; value: string };
  power: string;
  name: string;
}

/**
 * The app state of a stopped node's home at one retained height as a genesis document, holding what Cosmos
 * SDK 0.50's `export` prints: the chain's genesis header, each module's `exportGenesis` read at that height,
 * `initial_height` one past it (0 with `forZeroHeight`, as in Cosmos) and the bonded validators as the
 * consensus validators. The database is opened for reading; a running node holds its lock, and the open fails
 * with StoreLockedError.
 */
export async function exportState(opts: ExportOptions, deps: { logger: Logger }): Promise<GenesisDoc> {
  const layout = new HomeLayout(opts.home);
  if (!existsSync(layout.dbDir))
    throw new ExportError(`no chain data in ${layout.dbDir}: the node has never run in this home`);
  const store = await StateStore.open({ dir: layout.dbDir, pruning: PRUNING_NOTHING }, deps);
  try {
    if (store.latestHeight === 0)
      throw new ExportError(`no block has been committed in ${opts.home} yet; there is no state to export`);
    const height = opts.height ?? store.latestHeight;
    store.checkHeight(height);
    const header = (await readGenesisRecord(store)) ?? genesisHeader(readGenesis(layout.genesisJson));
    const assembly = opts.definition.assemble({
      chainId: header.chain_id,
      bech32Prefix: header.bech32_prefix ?? DEFAULT_BECH32_PREFIX,
      minGasPrices: "",
    });
    const names = assembly.modules.map((m) => m.name);
    for (const name of opts.modulesToExport)
      if (!names.includes(name))
        throw new ExportError(`module ${name} does not exist; the app's modules are ${names.join(", ")}`);
    const blockTime = (await (await BlockStore.open(store)).meta(height))?.header?.time;
    const ctx = new Context(
      new CacheMultiStore(store.view(height)),
      {
        chainId: header.chain_id,
        height,
        time: new Date(blockTime ? Number(blockTime.seconds) * 1000 : 0),
        proposerAddress: new Uint8Array(),
      },
      "query",
      new GasMeter(0),
      new EventManager(),
      deps.logger,
    );
    if (opts.forZeroHeight) await prepareForZeroHeight(ctx, assembly.keepers.staking, opts.jailAllowedAddrs);
    const appState: Record<string, unknown> = {};
    // Sorted by name, as Cosmos prints app_state (a JSON object from a Go map).
    for (const m of [...assembly.modules].sort((a, b) => a.name.localeCompare(b.name))) {
      if (opts.modulesToExport.length > 0 && !opts.modulesToExport.includes(m.name)) continue;
      appState[m.name] = (await m.exportGenesis?.(ctx)) ?? {};
    }
    return {
      ...header,
      initial_height: opts.forZeroHeight ? 0 : height + 1,
      app_state: appState,
      consensus: {
        validators: await consensusValidators(ctx, assembly.keepers.staking),
        params: header.consensus.params,
      },
    };
  } finally {
    await store.close();
  }
}

/** Who signs the exported chain's blocks: the consensus validators, as CometBFT's genesis lists them. */
async function consensusValidators(ctx: Context, staking: StakingKeeper): Promise<GenesisValidator[]> {
  const out: GenesisValidator[] = [];
  try {
    for await (const { validator, pubKey, power } of staking.consensusValidators(ctx))
      out.push({
        address: toHexUpper(cometAddress(pubKey)),
        pub_key: { type: "tendermint/PubKeyEd25519", value: Buffer.from(pubKey).toString("base64") },
        power: power.toString(),
        name: validator.description?.moniker ?? "",
      });
  } catch (e) {
    throw new ExportError((e as Error).message);
  }
  return out;
}
