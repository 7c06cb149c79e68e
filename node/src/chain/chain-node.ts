import type { Logger } from "@chaind/core/logger";
import { BlockProducer, type StopReason } from "../consensus/block-producer.js";
import { BlockStore } from "../consensus/block-store.js";
import { COMET_PROTOCOL } from "../consensus/comet-version.js";
import { Mempool } from "../consensus/mempool.js";
import { SignState } from "../consensus/sign-state.js";
import type { SnapshotScheduler } from "../snapshots/snapshot-scheduler.js";
import { writeGenesisRecord } from "./genesis-record.js";
import {
  checkGenesisValidators,
  type NodeApp,
  type NodeAppOptions,
  NodeCoreFields,
  openNodeApp,
} from "./node-app.js";
import { registerNodeService } from "./node-service.js";
import { embeddedTendermintBackend, registerTendermintService } from "./tendermint-service.js";
import { readTestnetConversion, testnetConversionDoneOp } from "./testnet-conversion-record.js";
import { embeddedTxBackend, registerTxService } from "./tx-service.js";

export type ChainNodeOptions = NodeAppOptions;

/** The embedded producer's validator's voting power while staking does not list it. */
export const EMBEDDED_VOTING_POWER = 1n;

/**
 * A running node of the embedded engine: the home's App (node-app.ts), and its block producer, block store and
 * mempool, which make and keep the chain's blocks on this one validator.
 */
export class ChainNode extends NodeCoreFields {
  private readonly snapshots: SnapshotScheduler | null;

  private constructor(
    core: NodeApp,
    readonly blocks: BlockStore,
    readonly mempool: Mempool,
    readonly producer: BlockProducer,
    private readonly logger: Logger,
  ) {
    super(core);
    this.snapshots = core.snapshots;
  }

  static async open(opts: ChainNodeOptions, deps: { logger: Logger }): Promise<ChainNode> {
    const core = await openNodeApp(opts, { ...deps, engine: "embedded" });
    const { layout, store, app, appConfig, nodeConfig, genesis, genesisDoc: doc, signer, snapshots } = core;
    try {
      if (doc) {
        if (store.latestHeight === 0) {
          checkGenesisValidators(doc, signer);
          await app.initChain(doc);
        }
        await writeGenesisRecord(store, genesis);
      }
      const conversion = await readTestnetConversion(store);
      if (conversion) {
        await app.stageTestnetConversion(conversion, [testnetConversionDoneOp]);
        deps.logger.info("in-place testnet: the next block applies the conversion", {
          height: store.nextHeight,
        });
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
          maxBlockGas: BigInt(genesis.consensus.params.block.max_gas),
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
      if (snapshots) producer.onCommit((b) => snapshots.committed(b.height));
      const node = new ChainNode(core, blocks, mempool, producer, deps.logger);
      const tendermint = embeddedTendermintBackend({ blocks, signer, votingPower: () => node.votingPower() });
      registerTxService(app.registrar, {
        app,
        backend: embeddedTxBackend({ blocks, mempool, producer }),
        blocks: tendermint,
      });
      registerNodeService(app.registrar, {
        appConfig,
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
        nodeId: node.nodeId,
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

  /** Asks the producer to stop after the block in progress (a signal); `run` then settles. */
  requestStop(): void {
    void this.producer.stop();
  }

  /** Finishes the block in progress, then closes the database. */
  async close(): Promise<void> {
    await this.producer.stop();
    await this.snapshots?.drain();
    await this.signatureThread.close();
    await this.store.close();
  }
}
