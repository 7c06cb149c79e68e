import { join } from "node:path";
import { NodeRpcClient } from "@chaind/core/comet-rpc-client";
import type { Logger } from "@chaind/core/logger";
import { AbciApp } from "../abci/abci-app.js";
import { AbciServer } from "../abci/abci-server.js";
import { AbciSnapshots } from "../abci/abci-snapshots.js";
import { CometbftProcess } from "../abci/cometbft-process.js";
import type { ModuleHaltError } from "../app/module-halt-error.js";
import type { StopReason } from "../consensus/block-producer.js";
import { SnapshotStore } from "../snapshots/snapshot-store.js";
import { StateSyncRestore } from "../snapshots/state-sync-restore.js";
import { cometTendermintBackend } from "./comet-tendermint-backend.js";
import { cometTxBackend } from "./comet-tx-backend.js";
import { writeGenesisRecord } from "./genesis-record.js";
import {
  type NodeApp,
  type NodeAppOptions,
  NodeCoreFields,
  openNodeApp,
  storedAppVersion,
} from "./node-app.js";
import { registerNodeService } from "./node-service.js";
import { registerTendermintService } from "./tendermint-service.js";
import { registerTxService } from "./tx-service.js";

export interface CometNodeOptions extends NodeAppOptions {
  /** Where to serve ABCI: `--address`, else config.toml's `proxy_app`. */
  abciAddress?: string;
  /** The `cometbft` to run beside chaind; null: CometBFT is the operator's to run (`--with-comet=false`). */
  cometbft: string | null;
  /** Flags for that cometbft: the listen addresses `start` was given, which override its config.toml too. */
  cometbftFlags?: string[];
}

/**
 * The largest ABCI message taken: room for a block at CometBFT's largest `max_bytes` (100 MiB) with its other
 * fields. CometBFT's own reader allows 2 GiB; a message past this closes its connection with an exception.
 */
const MAX_ABCI_MESSAGE_BYTES = 128 * 1024 * 1024;

/**
 * A running node that CometBFT drives over ABCI 2.0 (the other engine): the home's App served on the ABCI socket,
 * and, with `cometbft`, CometBFT itself run on the same home as a child. CometBFT makes, stores and serves the
 * blocks and txs (its RPC is the node's RPC); chaind serves REST and gRPC, whose tx and tendermint services ask
 * CometBFT's RPC, as the SDK does.
 */
export class CometNode extends NodeCoreFields {
  private child: CometbftProcess | null = null;
  private readonly stopped: Promise<StopReason>;
  private stop!: (reason: StopReason) => void;

  private constructor(
    private readonly core: NodeApp,
    private readonly opts: CometNodeOptions,
    private readonly logger: Logger,
    private abci: AbciServer | null = null,
  ) {
    super(core);
    this.stopped = new Promise((resolve) => {
      this.stop = resolve;
    });
  }

  static async open(opts: CometNodeOptions, deps: { logger: Logger }): Promise<CometNode> {
    const core = await openNodeApp(opts, { ...deps, engine: "cometbft" });
    const { store, app, genesis, nodeConfig } = core;
    try {
      if (core.genesisDoc) await writeGenesisRecord(store, genesis);
      const rpc = new NodeRpcClient(nodeConfig.rpc.laddr, { timeoutMs: 15_000 });
      const tendermint = cometTendermintBackend(rpc);
      registerTxService(app.registrar, { app, backend: cometTxBackend(rpc), blocks: tendermint });
      registerNodeService(app.registrar, {
        appConfig: core.appConfig,
        earliestHeight: () => store.earliestHeight,
        blocks: tendermint,
      });
      registerTendermintService(app.registrar, {
        app,
        backend: tendermint,
        addresses: core.addresses,
        chainId: genesis.chain_id,
        moniker: nodeConfig.moniker,
        rpcAddress: nodeConfig.rpc.laddr,
        nodeId: core.nodeId,
      });
      return new CometNode(core, opts, deps.logger);
    } catch (e) {
      await store.close();
      throw e;
    }
  }

  /** The address ABCI is served on, once `run` has started serving it. */
  get abciAddress(): string | undefined {
    return this.abci?.address;
  }

  /**
   * Serves ABCI (and starts CometBFT beside it) until asked to stop, CometBFT ends, or a module halts the chain
   * (the upgrade halt: CometBFT has stored the block, the new binary runs it); settles with the reason.
   */
  async run(): Promise<StopReason> {
    const { core, logger } = this;
    const abciLogger = logger.child("abci");
    const handler = new AbciApp({
      app: core.app,
      store: core.store,
      genesis: core.genesis,
      minRetainBlocks: core.appConfig.minRetainBlocks,
      onCommit: (height) => core.snapshots?.committed(height),
      snapshots: this.snapshotConnection(),
      onHalt: (e: ModuleHaltError) => this.stop({ kind: "error", error: e }),
      logger: abciLogger,
    });
    this.abci = await AbciServer.listen(
      { address: this.opts.abciAddress ?? core.nodeConfig.proxyApp, maxFrameBytes: MAX_ABCI_MESSAGE_BYTES },
      handler,
      abciLogger,
    );
    logger.info("starting node", {
      engine: "cometbft",
      chain_id: this.chainId,
      height: this.store.latestHeight,
      app: `${this.app.opts.name} ${this.app.opts.version}`,
      abci: this.abci.address,
    });
    if (this.opts.cometbft) {
      const child = CometbftProcess.start(
        { binary: this.opts.cometbft, home: core.layout.home, flags: this.opts.cometbftFlags },
        logger,
      );
      this.child = child;
      void child.exited.then(({ code, signal }) =>
        this.stop(
          code === 0
            ? { kind: "requested" }
            : {
                kind: "error",
                error: new Error(`cometbft ended ${signal ? `on ${signal}` : `with status ${code}`}`),
              },
        ),
      );
    }
    return this.stopped;
  }

  /** Snapshots served to peers from data/snapshots, and state sync into this home's (empty) store. */
  private snapshotConnection(): AbciSnapshots {
    const { core } = this;
    const store = new SnapshotStore(core.layout.snapshotsDir);
    const restore = new StateSyncRestore({
      state: core.store,
      stagingDir: join(core.layout.snapshotsDir, ".state-sync"),
      chainId: core.chainId,
      logger: this.logger.child("statesync"),
      restored: async () => {
        core.app.adoptRestoredState();
        core.app.appVersion = await storedAppVersion(core.store);
        await core.app.committedValidators();
      },
      discardState: async () => {
        await core.store.db.clear();
        await writeGenesisRecord(core.store, core.genesis);
      },
    });
    return new AbciSnapshots(store, restore);
  }

  /** Asks the node to stop (a signal): CometBFT first, then the ABCI server. */
  requestStop(): void {
    this.stop({ kind: "requested" });
  }

  /** Stops CometBFT (it finishes its step and ends), then ABCI, the signature thread and the database. */
  async close(): Promise<void> {
    await this.child?.stop();
    await this.abci?.close();
    await this.core.snapshots?.drain();
    await this.signatureThread.close();
    await this.store.close();
  }
}
