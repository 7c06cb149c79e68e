import { toHexUpper } from "@chaind/core/hex";
import type { Logger } from "@chaind/core/logger";
import type { AddressCodec } from "../app/address-codec.js";
import type { App } from "../app/app.js";
import { simulationLimits } from "../app/simulation-limits.js";
import type { AppConfig } from "../config/app-config.js";
import { DEFAULT_BECH32_PREFIX, type GenesisDoc, readGenesis } from "../config/genesis.js";
import { type HomeConfig, readHomeConfig } from "../config/home-config.js";
import { HomeLayout } from "../config/home-layout.js";
import type { NodeConfig } from "../config/node-config.js";
import { readPrivValidatorKey } from "../config/priv-validator-key.js";
import { nodeIdOf } from "../consensus/node-id.js";
import type { ValidatorSigner } from "../consensus/validator-signer.js";
import { ParallelVerifier } from "../crypto/parallel-verifier.js";
import { readProtocolVersion } from "../modules/upgrade/upgrade-keeper.js";
import { SnapshotScheduler } from "../snapshots/snapshot-scheduler.js";
import { SnapshotStore } from "../snapshots/snapshot-store.js";
import { pruningOptions } from "../store/pruning.js";
import { StateStore } from "../store/state-store.js";
import type { AppDefinition } from "./app-definition.js";
import { type GenesisHeader, genesisHeader, readGenesisRecord } from "./genesis-record.js";
import { createApp } from "./standard-app.js";

export interface NodeAppOptions {
  home: string;
  definition: AppDefinition;
  /** Overrides of app.toml, as `chaind start` flags give them. */
  haltHeight?: number;
  minimumGasPrices?: string;
  /** Plan heights whose upgrade this node skips (`--unsafe-skip-upgrades`). */
  skipUpgradeHeights?: readonly number[];
  /** The home's app.toml and config.toml when the caller has read them already. */
  config?: HomeConfig;
  /** The state store's read caches (StateStoreOptions); 0 turns them off, to measure uncached reads. */
  readCacheEntries?: number;
}

/** What every node serves from, whichever engine makes its blocks: the home's state, the App and its settings. */
export interface NodeCore {
  readonly layout: HomeLayout;
  readonly store: StateStore;
  readonly app: App;
  readonly chainId: string;
  readonly appConfig: AppConfig;
  readonly nodeConfig: NodeConfig;
  /** The genesis document without its app state: that can be tens of MB and is read again when asked for. */
  readonly genesis: GenesisHeader;
  readonly signer: ValidatorSigner;
  /** node_info.id, read once from node_key.json (consensus/node-id.ts). */
  readonly nodeId: string;
  readonly signatureThread: ParallelVerifier;
}

/** NodeCore's fields, taken from the opened App: what each engine's node class starts from. */
export abstract class NodeCoreFields implements NodeCore {
  readonly layout: HomeLayout;
  readonly store: StateStore;
  readonly app: App;
  readonly chainId: string;
  readonly appConfig: AppConfig;
  readonly nodeConfig: NodeConfig;
  readonly genesis: GenesisHeader;
  readonly signer: ValidatorSigner;
  readonly nodeId: string;
  readonly signatureThread: ParallelVerifier;

  constructor(core: NodeCore) {
    this.layout = core.layout;
    this.store = core.store;
    this.app = core.app;
    this.chainId = core.chainId;
    this.appConfig = core.appConfig;
    this.nodeConfig = core.nodeConfig;
    this.genesis = core.genesis;
    this.signer = core.signer;
    this.nodeId = core.nodeId;
    this.signatureThread = core.signatureThread;
  }
}

/** A home's App opened: NodeCore, and what an engine needs besides to drive it. */
export interface NodeApp extends NodeCore {
  addresses: AddressCodec;
  /** genesis.json when it was read (before the first block); after, the kept header stands for it. */
  genesisDoc: GenesisDoc | undefined;
  /** app.toml's state-sync snapshots; null when snapshot-interval is 0. */
  snapshots: SnapshotScheduler | null;
}

/** The app's protocol version as the last committed block left it (0 before the first block). */
export async function storedAppVersion(store: StateStore): Promise<number> {
  return store.latestHeight > 0 ? Number(await readProtocolVersion(store)) : 0;
}

/**
 * A genesis that lists its consensus validators (an exported one does) names who signs its blocks; the embedded
 * producer signs with this home's validator key, so that key must be among them.
 */
export function checkGenesisValidators(doc: GenesisDoc, signer: ValidatorSigner): void {
  const listed = (doc.consensus.validators ?? []) as { address?: string }[];
  if (listed.length === 0) return;
  const own = toHexUpper(signer.address);
  if (!listed.some((v) => v.address?.toUpperCase() === own))
    throw new Error(
      `this home's validator key (address ${own}) is not among genesis consensus.validators (${listed.map((v) => v.address).join(", ")}); start the node with one of their priv_validator_key.json`,
    );
}

/**
 * Opens a home's state and assembles its App: settings, validator key, state store, genesis (the file before the
 * first block, the kept header after), the app definition's modules and the snapshot scheduler. The store is
 * closed again if anything fails.
 */
export async function openNodeApp(
  opts: NodeAppOptions,
  deps: { logger: Logger; engine: "embedded" | "cometbft" },
): Promise<NodeApp> {
  const layout = new HomeLayout(opts.home);
  const { app: appConfig, node: nodeConfig } = opts.config ?? readHomeConfig(layout);
  if (opts.minimumGasPrices !== undefined) appConfig.minimumGasPrices = opts.minimumGasPrices;
  const signer = readPrivValidatorKey(layout.privValidatorKey);
  const store = await StateStore.open(
    { dir: layout.dbDir, pruning: pruningOptions(appConfig), readCacheEntries: opts.readCacheEntries },
    { logger: deps.logger.child("store") },
  );
  // No thread until the first signature it can check ahead: nothing to end if opening fails.
  const signatureThread = new ParallelVerifier(deps.logger.child("signatures"));
  try {
    // genesis.json is parsed only before the first block (InitChain needs its app state) and in a home whose
    // chain began before the header was kept in the store; after that, the kept header is all start needs.
    const kept = store.latestHeight > 0 ? await readGenesisRecord(store) : undefined;
    const genesisDoc = kept ? undefined : readGenesis(layout.genesisJson);
    const genesis = genesisDoc ? genesisHeader(genesisDoc) : (kept as GenesisHeader);
    let app: App | undefined;
    const assembly = opts.definition.assemble({
      chainId: genesis.chain_id,
      bech32Prefix: genesis.bech32_prefix ?? DEFAULT_BECH32_PREFIX,
      minGasPrices: appConfig.minimumGasPrices,
      maxBlockGas: BigInt(genesis.consensus.params.block.max_gas),
      parallelVerifier: signatureThread,
      upgrade: {
        dataDir: layout.dataDir,
        skipHeights: opts.skipUpgradeHeights ?? [],
        onProtocolVersion: (v) => {
          if (app) app.appVersion = Number(v);
        },
      },
    });
    const simulation = simulationLimits({
      blockMaxGas: genesis.consensus.params.block.max_gas,
      queryGasLimit: appConfig.queryGasLimit,
      maxTxBytes: nodeConfig.mempool.maxTxBytes,
    });
    app = createApp(
      { ...assembly, opts: { ...assembly.opts, simulation, queryGasLimit: appConfig.queryGasLimit } },
      { store, logger: deps.logger.child("app") },
    );
    app.appVersion = await storedAppVersion(store);
    if (store.latestHeight > 0) await app.committedValidators();
    const { snapshotInterval, snapshotKeepRecent } = appConfig.stateSync;
    const snapshots =
      snapshotInterval > 0
        ? new SnapshotScheduler(
            { interval: snapshotInterval, keepRecent: snapshotKeepRecent },
            {
              state: store,
              snapshots: new SnapshotStore(layout.snapshotsDir),
              chainId: genesis.chain_id,
              withLastBlock: deps.engine === "embedded",
              logger: deps.logger.child("snapshots"),
            },
          )
        : null;
    return {
      layout,
      store,
      app,
      chainId: genesis.chain_id,
      appConfig,
      nodeConfig,
      genesis,
      signer,
      nodeId: nodeIdOf(layout, signer),
      signatureThread,
      addresses: assembly.keepers.addresses,
      genesisDoc,
      snapshots,
    };
  } catch (e) {
    await store.close();
    throw e;
  }
}
