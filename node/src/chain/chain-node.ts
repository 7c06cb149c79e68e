import { toHexUpper } from "@chaind/core/hex";
import type { Logger } from "@chaind/core/logger";
import type { App } from "../app/app.js";
import { simulationLimits } from "../app/simulation-limits.js";
import type { AppConfig } from "../config/app-config.js";
import { DEFAULT_BECH32_PREFIX, type GenesisDoc, readGenesis } from "../config/genesis.js";
import { type HomeConfig, readHomeConfig } from "../config/home-config.js";
import { HomeLayout } from "../config/home-layout.js";
import type { NodeConfig } from "../config/node-config.js";
import { readPrivValidatorKey } from "../config/priv-validator-key.js";
import { BlockProducer, type StopReason } from "../consensus/block-producer.js";
import { BlockStore } from "../consensus/block-store.js";
import { COMET_PROTOCOL } from "../consensus/comet-version.js";
import { Mempool } from "../consensus/mempool.js";
import { nodeIdOf } from "../consensus/node-id.js";
import { SignState } from "../consensus/sign-state.js";
import type { ValidatorSigner } from "../consensus/validator-signer.js";
import { ParallelVerifier } from "../crypto/parallel-verifier.js";
import { readProtocolVersion } from "../modules/upgrade/upgrade-keeper.js";
import { SnapshotScheduler } from "../snapshots/snapshot-scheduler.js";
import { SnapshotStore } from "../snapshots/snapshot-store.js";
import { pruningOptions } from "../store/pruning.js";
import { StateStore } from "../store/state-store.js";
import type { AppDefinition } from "./app-definition.js";
import {
  type GenesisHeader,
  genesisHeader,
  readGenesisRecord,
  writeGenesisRecord,
} from "./genesis-record.js";
import { createApp } from "./standard-app.js";
import { registerTendermintService } from "./tendermint-service.js";
import { registerTxService } from "./tx-service.js";

export interface ChainNodeOptions {
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

/** The app's protocol version as the last committed block left it (0 before the first block). */
export async function storedAppVersion(store: StateStore): Promise<number> {
  return store.latestHeight > 0 ? Number(await readProtocolVersion(store)) : 0;
}

/**
 * A genesis that lists its consensus validators (an exported one does) names who signs its blocks; the embedded
 * producer signs with this home's validator key, so that key must be among them.
 */
function checkGenesisValidators(doc: GenesisDoc, signer: ValidatorSigner): void {
  const listed = (doc.consensus.validators ?? []) as { address?: string }[];
  if (listed.length === 0) return;
  const own = toHexUpper(signer.address);
  if (!listed.some((v) => v.address?.toUpperCase() === own))
    throw new Error(
      `this home's validator key (address ${own}) is not among genesis consensus.validators (${listed.map((v) => v.address).join(", ")}); start the node with one of their priv_validator_key.json`,
    );
}

/** The embedded producer's validator's voting power while staking does not list it. */
export const EMBEDDED_VOTING_POWER = 1n;

/** A running node: state, app, mempool and the block producer, assembled from a home folder. */
export class ChainNode {
  private constructor(
    readonly layout: HomeLayout,
    readonly store: StateStore,
    readonly app: App,
    readonly blocks: BlockStore,
    readonly mempool: Mempool,
    readonly producer: BlockProducer,
    readonly chainId: string,
    readonly appConfig: AppConfig,
    readonly nodeConfig: NodeConfig,
    /** The genesis document without its app state: that can be tens of MB and is read again when asked for. */
    readonly genesis: GenesisHeader,
    readonly signer: ValidatorSigner,
    /** node_info.id, read once from node_key.json (consensus/node-id.ts). */
    readonly nodeId: string,
    private readonly logger: Logger,
    /** app.toml's state-sync snapshots; null when snapshot-interval is 0. */
    private readonly snapshots: SnapshotScheduler | null,
    readonly signatureThread: ParallelVerifier,
  ) {}

  static async open(opts: ChainNodeOptions, deps: { logger: Logger }): Promise<ChainNode> {
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
      const doc = kept ? undefined : readGenesis(layout.genesisJson);
      const genesis = doc ? genesisHeader(doc) : (kept as GenesisHeader);
      if (doc && store.latestHeight === 0) checkGenesisValidators(doc, signer);
      let app: App | undefined;
      const assembly = opts.definition.assemble({
        chainId: genesis.chain_id,
        bech32Prefix: genesis.bech32_prefix ?? DEFAULT_BECH32_PREFIX,
        minGasPrices: appConfig.minimumGasPrices,
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
      if (doc) {
        if (store.latestHeight === 0) await app.initChain(doc);
        await writeGenesisRecord(store, genesis);
      }
      const blocks = await BlockStore.open(store);
      const signState = SignState.open(layout.privValidatorState);
      signState.checkNotAhead(blocks.height);
      const mempool = new Mempool(nodeConfig.mempool, { app, logger: deps.logger.child("mempool") });
      const producer = new BlockProducer(
        {
          chainId: genesis.chain_id,
          timeoutCommitMs: nodeConfig.consensus.timeoutCommitMs,
          createEmptyBlocks: nodeConfig.consensus.createEmptyBlocks,
          maxBlockTxs: nodeConfig.consensus.maxBlockTxs,
          maxBlockBytes: Number(genesis.consensus.params.block.max_bytes),
          blockProtocol: COMET_PROTOCOL.block,
          appProtocol: () => app.appVersion,
          votingPower: (): bigint => node.votingPower(),
        },
        {
          app,
          blocks,
          mempool,
          signer,
          signState,
          logger: deps.logger.child("consensus"),
        },
      );
      const haltHeight = opts.haltHeight ?? appConfig.haltHeight;
      const haltTime = appConfig.haltTime;
      producer.haltCheck = (b) => {
        if (haltHeight > 0 && b.height >= haltHeight) return `halt height ${haltHeight} reached`;
        const t = Number(b.block.header?.time?.seconds ?? 0n);
        if (haltTime > 0 && t >= haltTime) return `halt time ${haltTime} reached`;
        return null;
      };
      const { snapshotInterval, snapshotKeepRecent } = appConfig.stateSync;
      const snapshots =
        snapshotInterval > 0
          ? new SnapshotScheduler(
              { interval: snapshotInterval, keepRecent: snapshotKeepRecent },
              {
                state: store,
                snapshots: new SnapshotStore(layout.snapshotsDir),
                chainId: genesis.chain_id,
                logger: deps.logger.child("snapshots"),
              },
            )
          : null;
      if (snapshots) producer.onCommit((b) => snapshots.committed(b.height));
      const node = new ChainNode(
        layout,
        store,
        app,
        blocks,
        mempool,
        producer,
        genesis.chain_id,
        appConfig,
        nodeConfig,
        genesis,
        signer,
        nodeIdOf(layout, signer),
        deps.logger,
        snapshots,
        signatureThread,
      );
      registerTxService(app.registrar, { app, blocks, mempool, producer });
      registerTendermintService(app.registrar, {
        app,
        blocks,
        signer,
        addresses: assembly.keepers.addresses,
        chainId: genesis.chain_id,
        moniker: nodeConfig.moniker,
        rpcAddress: nodeConfig.rpc.laddr,
        nodeId: node.nodeId,
        votingPower: () => node.votingPower(),
      });
      return node;
    } catch (e) {
      await store.close();
      throw e;
    }
  }

  /**
   * The embedded validator's voting power, as headers and RPC report it: its bonded tokens / 10^6 in staking (the
   * SDK's power reduction), or 1 while staking does not list it (it makes the blocks all the same).
   */
  votingPower(): bigint {
    const mine = this.app.knownValidators?.find((v) =>
      Buffer.from(v.pubKey).equals(Buffer.from(this.signer.pubKey)),
    );
    return mine?.power ?? EMBEDDED_VOTING_POWER;
  }

  /** Produces blocks until stopped or halted; settles with the reason. */
  run(): Promise<StopReason> {
    this.logger.info("starting node", {
      chain_id: this.chainId,
      height: this.store.latestHeight,
      app: `${this.app.opts.name} ${this.app.opts.version}`,
    });
    return this.producer.start();
  }

  /** Finishes the block in progress, then closes the database. */
  async close(): Promise<void> {
    await this.producer.stop();
    await this.snapshots?.drain();
    await this.signatureThread.close();
    await this.store.close();
  }
}
