import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Logger } from "@chaind/core/logger";
import {
  CheckTxType,
  type Request,
  ResponseProcessProposal_ProposalStatus,
  ResponseVerifyVoteExtension_VerifyStatus,
} from "@chaind/proto/tendermint/abci/types_pb";
import type { App } from "../app/app.js";
import type { ConsensusValidator } from "../app/consensus-validators.js";
import type { AbciEvent } from "../app/events.js";
import { ModuleHaltError } from "../app/module-halt-error.js";
import type { TxResult } from "../app/tx-result.js";
import type { GenesisHeader } from "../chain/genesis-record.js";
import { crashPoint } from "../consensus/crash-point.js";
import { proposalTxs } from "../consensus/proposal-txs.js";
import type { StateStore } from "../store/state-store.js";
import { abciQuery } from "./abci-query.js";
import type { AbciAnswer, AbciHandler } from "./abci-server.js";
import type { AbciSnapshots } from "./abci-snapshots.js";

type Req<C extends Request["value"]["case"]> = Extract<Request["value"], { case: C }>["value"];

const eventsOf = (events: readonly AbciEvent[]) =>
  events.map((e) => ({ type: e.type, attributes: e.attributes.map((a) => ({ ...a })) }));

const txResultOf = (r: TxResult) => ({
  code: r.code,
  data: r.data,
  log: r.log,
  info: r.info,
  gasWanted: r.gasWanted,
  gasUsed: r.gasUsed,
  events: eventsOf(r.events),
  codespace: r.codespace,
});

const updatesOf = (vs: readonly ConsensusValidator[]) =>
  vs.map((v) => ({ pubKey: { sum: { case: "ed25519" as const, value: v.pubKey } }, power: v.power }));

export interface AbciAppDeps {
  app: App;
  store: StateStore;
  /** The home's genesis header, for what CometBFT's InitChain does not carry (our bech32 prefix, the app's name). */
  genesis: GenesisHeader;
  /** app.toml `min-retain-blocks`: how many blocks below the latest CometBFT must keep (0: all). */
  minRetainBlocks: number;
  /** Called after each commit (the snapshot scheduler). */
  onCommit(height: number): void;
  /** The snapshot connection: snapshots served to peers, and state sync. */
  snapshots: AbciSnapshots;
  /** A module halted the chain in a block (the upgrade halt): the node stops with its status. */
  onHalt(error: ModuleHaltError): void;
  logger: Logger;
}

/**
 * The App as CometBFT's ABCI 2.0 client asks it: each request mapped onto the App that the embedded engine
 * drives too. Proposals are made and taken as the SDK's defaults do (the mempool's order, up to the block's
 * bytes; every proposal accepted), and vote extensions are off (empty, always accepted).
 */
export class AbciApp implements AbciHandler {
  constructor(private readonly deps: AbciAppDeps) {}

  async handle(request: Request): Promise<AbciAnswer> {
    const r = request.value;
    switch (r.case) {
      case "info":
        return { case: "info", value: this.info() };
      case "initChain":
        return { case: "initChain", value: await this.initChain(r.value) };
      case "query": {
        const a = await abciQuery(this.deps, {
          path: r.value.path,
          data: r.value.data,
          height: Number(r.value.height),
        });
        return { case: "query", value: { ...a, height: BigInt(a.height) } };
      }
      case "checkTx":
        return { case: "checkTx", value: await this.checkTx(r.value) };
      case "prepareProposal":
        return {
          case: "prepareProposal",
          value: {
            txs: proposalTxs(
              r.value.txs,
              {
                maxBytes: Number(r.value.maxTxBytes),
                maxGas: BigInt(this.deps.genesis.consensus.params.block.max_gas),
              },
              (tx) => this.deps.app.gasWanted(tx),
            ),
          },
        };
      case "processProposal":
        return { case: "processProposal", value: { status: ResponseProcessProposal_ProposalStatus.ACCEPT } };
      case "extendVote":
        return { case: "extendVote", value: { voteExtension: new Uint8Array() } };
      case "verifyVoteExtension":
        return {
          case: "verifyVoteExtension",
          value: { status: ResponseVerifyVoteExtension_VerifyStatus.ACCEPT },
        };
      case "finalizeBlock":
        return { case: "finalizeBlock", value: await this.finalizeBlock(r.value) };
      case "commit":
        return { case: "commit", value: await this.commit() };
      case "listSnapshots":
        return { case: "listSnapshots", value: this.deps.snapshots.list() };
      case "offerSnapshot":
        return { case: "offerSnapshot", value: this.deps.snapshots.offer(r.value) };
      case "loadSnapshotChunk":
        return { case: "loadSnapshotChunk", value: this.deps.snapshots.loadChunk(r.value) };
      case "applySnapshotChunk":
        return { case: "applySnapshotChunk", value: await this.deps.snapshots.apply(r.value) };
      default:
        throw new Error(`unknown ABCI request ${r.case}`);
    }
  }

  private info() {
    const i = this.deps.app.info();
    return {
      data: i.appName,
      version: i.version,
      appVersion: BigInt(i.appVersion),
      lastBlockHeight: BigInt(i.lastBlockHeight),
      lastBlockAppHash: i.lastBlockAppHash,
    };
  }

  /** Genesis from CometBFT's request (chain id, initial height, time, app state), the rest from the home's. */
  private async initChain(req: Req<"initChain">) {
    const { app, genesis } = this.deps;
    let appState: Record<string, unknown>;
    try {
      appState = JSON.parse(new TextDecoder().decode(req.appStateBytes || new TextEncoder().encode("{}")));
    } catch (e) {
      throw new Error(`InitChain's app_state_bytes are not JSON: ${(e as Error).message}`);
    }
    const initialHeight = Number(req.initialHeight) || 1;
    const { appHash, validators } = await app.initChain({
      ...genesis,
      chain_id: req.chainId,
      initial_height: initialHeight,
      genesis_time: req.time ? timestampDate(req.time).toISOString() : genesis.genesis_time,
      app_state: appState,
    });
    this.deps.logger.info("InitChain", {
      chain_id: req.chainId,
      initial_height: initialHeight,
      validators: validators.length,
    });
    return { validators: updatesOf(validators), appHash };
  }

  private async checkTx(req: Req<"checkTx">) {
    const { app } = this.deps;
    // A recheck runs the tx again on the check state the last commit reset, as a new one does.
    if (req.type === CheckTxType.NEW) await app.precheckTx(req.tx);
    return txResultOf(await app.checkTx(req.tx));
  }

  private async finalizeBlock(req: Req<"finalizeBlock">) {
    const { app } = this.deps;
    const versionBefore = app.appVersion;
    try {
      const result = await app.finalizeBlock({
        height: Number(req.height),
        time: req.time ? timestampDate(req.time) : new Date(0),
        txs: req.txs,
        proposerAddress: req.proposerAddress,
      });
      crashPoint("block-executed", Number(req.height));
      return {
        events: eventsOf(result.events),
        txResults: result.txResults.map(txResultOf),
        validatorUpdates: updatesOf(result.validatorUpdates),
        // As the SDK: an upgrade's new protocol version becomes the app version of the next headers, which state
        // sync checks a restored app's Info against.
        consensusParamUpdates:
          app.appVersion !== versionBefore ? { version: { app: BigInt(app.appVersion) } } : undefined,
        appHash: result.appHash,
      };
    } catch (e) {
      if (e instanceof ModuleHaltError) {
        app.abandonBlock();
        this.deps.onHalt(e);
      }
      throw e;
    }
  }

  private async commit() {
    const { app, minRetainBlocks } = this.deps;
    const { height } = await app.commit();
    this.deps.onCommit(height);
    return { retainHeight: BigInt(minRetainBlocks > 0 ? Math.max(0, height - minRetainBlocks) : 0) };
  }
}
