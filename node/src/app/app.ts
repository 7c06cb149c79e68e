import {
  create,
  type DescMessage,
  fromBinary,
  type JsonValue,
  type Message,
  toBinary,
} from "@bufbuild/protobuf";
import type { Logger } from "@chaind/core/logger";
import { AuthInfoSchema, TxBodySchema, TxRawSchema, TxSchema } from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import type { GenesisDoc } from "../config/genesis.js";
import { ChainError, toChainError } from "../errors/chain-error.js";
import { GrpcCode } from "../errors/grpc-code.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import type { AnteHandler } from "../modules/auth/ante-handler.js";
import { CacheMultiStore } from "../store/cache-multi-store.js";
import type { ChangeSet } from "../store/change-set.js";
import type { MultiStore } from "../store/multi-store.js";
import type { StateDigest } from "../store/state-digest.js";
import type { BatchOp, StateStore } from "../store/state-store.js";
import type { AddressCodec } from "./address-codec.js";
import { rewriteAnyTypeUrls } from "./any-namespace.js";
import type { AppModule } from "./app-module.js";
import { AsyncLock } from "./async-lock.js";
import { ConcurrencyGate, type GateLoad } from "./concurrency-gate.js";
import { type ConsensusValidator, validatorUpdates } from "./consensus-validators.js";
import { type BlockHeaderInfo, Context } from "./context.js";
import { nextTurn } from "./event-loop-turn.js";
import { type AbciEvent, EventManager } from "./events.js";
import { GasMeter } from "./gas-meter.js";
import { withNonNullable } from "./gogoproto-non-nullable.js";
import { msgSigners } from "./msg-signers.js";
import { type Namespace, toSdkName } from "./namespace.js";
import { fromProtoJson } from "./proto-json.js";
import { type RegisteredMethod, ServiceRegistrar } from "./service-registrar.js";
import {
  defaultSimulationLimits,
  MAX_TX_MSGS,
  SIMULATION_CONCURRENCY,
  type SimulationLimits,
} from "./simulation-limits.js";
import type { TestnetConversion } from "./testnet-conversion.js";
import { type DecodedTx, decodeTx } from "./tx-decoder.js";
import { encodeTxMsgData, type MsgResponse } from "./tx-msg-data.js";
import { errorResult, type TxResult } from "./tx-result.js";
import type { TypeRegistry } from "./type-registry.js";

export interface AppOptions {
  name: string;
  version: string;
  chainId: string;
  /** Bounds of a simulation; without them, those of a node with no block gas limit and no query-gas-limit. */
  simulation?: SimulationLimits;
  /** app.toml `query-gas-limit`: the gas one query may use; 0 or absent: unlimited, as in Cosmos. */
  queryGasLimit?: number;
}

export interface AppDeps {
  store: StateStore;
  logger: Logger;
  /** In execution order for genesis and block hooks. */
  modules: readonly AppModule[];
  anteHandler: AnteHandler;
  /** Work of the ante handler that can run before a tx's CheckTx turn; never throws. */
  txPrecheck?: TxPrecheck;
  /** Resolves Any type URLs; holds every module's proto files. */
  types: TypeRegistry;
  addresses: AddressCodec;
}

export interface FinalizeBlockRequest {
  height: number;
  time: Date;
  txs: readonly Uint8Array[];
  proposerAddress: Uint8Array;
}

export interface FinalizeBlockResult {
  events: AbciEvent[];
  txResults: TxResult[];
  appHash: Uint8Array;
  /** How the block changed the validator set (ABCI's validator updates; power 0: gone). */
  validatorUpdates: ConsensusValidator[];
}

export interface QueryResult {
  value: Uint8Array;
  height: number;
}

export interface QueryMessageResult {
  /** A message of type `output`. */
  message: Message;
  output: DescMessage;
  height: number;
}

/** A query between finding its handler and running it. */
interface PreparedQuery {
  method: RegisteredMethod;
  namespace: Namespace;
  height: number;
  view: MultiStore;
}

type ExecMode = "check" | "simulate" | "finalize";

/** Checks of a decoded tx that need no state and may run outside CheckTx's lock (signatures on another core). */
export type TxPrecheck = (tx: DecodedTx, chainId: string) => Promise<void>;

/**
 * The ABCI-shaped application: everything consensus needs and nothing about how blocks are made, so the
 * embedded producer and a future CometBFT socket drive the same object.
 */
export class App {
  readonly registrar = new ServiceRegistrar();
  readonly types: TypeRegistry;
  private readonly lock = new AsyncLock();
  /**
   * Txs decoded for CheckTx, by the very bytes object the mempool keeps and the block hands back, so CheckTx after
   * its precheck, recheck and delivery skip decoding again. CheckTx runs no message, so what it decoded is still
   * as decoded.
   */
  private readonly checkedTxs = new WeakMap<Uint8Array, DecodedTx>();
  private readonly simulations = new ConcurrencyGate(
    SIMULATION_CONCURRENCY,
    ({ running, waiting }) =>
      new ChainError(
        SdkErrors.InvalidRequest.codespace,
        SdkErrors.InvalidRequest.code,
        GrpcCode.RESOURCE_EXHAUSTED,
        `too many simulations in flight (${running} running, ${waiting} waiting); try again shortly`,
      ),
  );
  private readonly simulationLimits: SimulationLimits;
  private checkState: CacheMultiStore;
  /**
   * Writes made outside a block wait here for the next one, which commits them with its own changes: genesis
   * before the first block, an in-place testnet's conversion before the first block of the testnet.
   */
  private stagedState: CacheMultiStore | null = null;
  /** Records outside the state committed in the same batch as the staged writes. */
  private stagedOps: BatchOp[] = [];
  private pending: {
    height: number;
    changes: ChangeSet;
    after: { digest: StateDigest; appHash: Uint8Array };
    validators: ConsensusValidator[];
  } | null = null;
  /** The validator set as of the last commit (InitChain's before the first); null until known. */
  private lastValidators: ConsensusValidator[] | null = null;
  /** The app's protocol version (ABCI app_version), which the upgrade module raises at each upgrade. */
  appVersion = 0;

  constructor(
    readonly opts: AppOptions,
    private readonly deps: AppDeps,
  ) {
    this.types = deps.types;
    this.simulationLimits = opts.simulation ?? defaultSimulationLimits();
    for (const m of deps.modules) m.registerServices?.(this.registrar);
    this.checkState = new CacheMultiStore(deps.store.view());
  }

  get modules(): readonly AppModule[] {
    return this.deps.modules;
  }

  info(): {
    lastBlockHeight: number;
    lastBlockAppHash: Uint8Array;
    version: string;
    appName: string;
    appVersion: number;
  } {
    return {
      appVersion: this.appVersion,
      lastBlockHeight: this.deps.store.latestHeight,
      lastBlockAppHash: this.deps.store.latestAppHash,
      version: this.opts.version,
      appName: this.opts.name,
    };
  }

  private context(
    ms: CacheMultiStore,
    block: BlockHeaderInfo,
    mode: Context["mode"],
    gas?: GasMeter,
  ): Context {
    return new Context(ms, block, mode, gas ?? new GasMeter(0), new EventManager(), this.deps.logger);
  }

  /** The validator set a module provides (staking's), as the state in `ms` has it; empty when none does. */
  private async validatorSet(ms: CacheMultiStore, block: BlockHeaderInfo): Promise<ConsensusValidator[]> {
    const provider = this.deps.modules.find((m) => m.consensusValidators);
    return provider ? provider.consensusValidators!(this.context(ms.branch(), block, "query")) : [];
  }

  /** The validator set as the last commit (or InitChain) left it, when it is known already. */
  get knownValidators(): readonly ConsensusValidator[] | null {
    return this.lastValidators;
  }

  /**
   * The validator set as the last committed block left it: known from InitChain or the last commit, else read
   * from the committed state (after a restart).
   */
  async committedValidators(): Promise<ConsensusValidator[]> {
    this.lastValidators ??= await this.validatorSet(new CacheMultiStore(this.deps.store.view()), {
      chainId: this.opts.chainId,
      height: this.deps.store.latestHeight,
      time: new Date(0),
      proposerAddress: new Uint8Array(),
    });
    return this.lastValidators;
  }

  /**
   * Validates every module's genesis section and stages the state; it commits with the first block. Answers the
   * app hash and the validator set genesis gives consensus (staking's bonded validators, gentxs included).
   */
  async initChain(genesis: GenesisDoc): Promise<{ appHash: Uint8Array; validators: ConsensusValidator[] }> {
    if (genesis.chain_id !== this.opts.chainId) {
      throw new Error(`genesis chain id ${genesis.chain_id} does not match the node's ${this.opts.chainId}`);
    }
    for (const m of this.deps.modules) m.validateGenesis?.(genesis.app_state[m.name] ?? m.defaultGenesis?.());
    // As CometBFT: the first block is initial_height, and its header carries genesis app_hash as the hash before it.
    this.deps.store.setGenesisStart(genesis.initial_height, genesisAppHash(genesis.app_hash));
    const ms = new CacheMultiStore(this.deps.store.view());
    const block: BlockHeaderInfo = {
      chainId: genesis.chain_id,
      // As Cosmos' InitChain: a chain that starts past height 1 runs its genesis at that height.
      height: genesis.initial_height > 1 ? genesis.initial_height : 0,
      time: new Date(genesis.genesis_time),
      proposerAddress: new Uint8Array(),
    };
    const ctx = this.context(ms, block, "genesis");
    for (const m of this.deps.modules) {
      await m.initGenesis?.(ctx, genesis.app_state[m.name] ?? m.defaultGenesis?.());
    }
    await this.deliverGenTxs(genesis, ms, block);
    this.stagedState = ms;
    this.checkState = ms.branch();
    this.lastValidators = await this.validatorSet(ms, block);
    return { appHash: this.deps.store.stateAfter(ms.changeSet()).appHash, validators: this.lastValidators };
  }

  /**
   * Stages an in-place testnet's conversion on the committed state: every module's `convertToTestnet`, run as
   * at the next height. The next block commits it with its own changes and `ops` (what marks it pending).
   */
  async stageTestnetConversion(t: TestnetConversion, ops: BatchOp[]): Promise<void> {
    if (this.stagedState) throw new Error("a conversion or genesis is staged already");
    const ms = new CacheMultiStore(this.deps.store.view());
    const block: BlockHeaderInfo = {
      chainId: this.opts.chainId,
      height: this.deps.store.nextHeight,
      time: new Date(),
      proposerAddress: new Uint8Array(),
    };
    const ctx = this.context(ms, block, "finalize");
    for (const m of this.deps.modules) await m.convertToTestnet?.(ctx, t);
    this.stagedState = ms;
    this.stagedOps = ops;
    this.checkState = ms.branch();
  }

  /** Runs genesis transactions (gentxs collected into `genutil.gen_txs`) on top of the modules' genesis. */
  private async deliverGenTxs(
    genesis: GenesisDoc,
    ms: CacheMultiStore,
    block: BlockHeaderInfo,
  ): Promise<void> {
    const genTxs = (genesis.app_state.genutil as { gen_txs?: JsonValue[] } | undefined)?.gen_txs ?? [];
    for (const [i, json] of genTxs.entries()) {
      let bytes: Uint8Array;
      try {
        const tx = fromProtoJson(TxSchema, json, this.types);
        bytes = toBinary(
          TxRawSchema,
          create(TxRawSchema, {
            bodyBytes: toBinary(TxBodySchema, tx.body ?? create(TxBodySchema)),
            authInfoBytes: toBinary(AuthInfoSchema, tx.authInfo ?? create(AuthInfoSchema)),
            signatures: tx.signatures,
          }),
        );
      } catch (e) {
        throw new Error(`genesis genutil.gen_txs[${i}]: ${(e as Error).message}`);
      }
      const { result } = await this.runTx("finalize", bytes, ms, block);
      if (result.code !== 0) throw new Error(`genesis genutil.gen_txs[${i}] failed: ${result.log}`);
    }
  }

  /**
   * What CheckTx can have done before its turn, with no lock held: the decoding, and the precheck (signatures
   * verified on another core while this thread runs other txs and blocks). Whatever it could not do, CheckTx does.
   */
  async precheckTx(txBytes: Uint8Array): Promise<void> {
    const precheck = this.deps.txPrecheck;
    if (!precheck) return;
    let tx = this.checkedTxs.get(txBytes);
    if (!tx) {
      try {
        tx = decodeTx(txBytes, this.types);
      } catch {
        return;
      }
      this.checkedTxs.set(txBytes, tx);
    }
    await precheck(tx, this.opts.chainId);
  }

  /** A tx's gas limit (its fee's), for choosing a block's txs; undefined when the bytes are no tx. */
  gasWanted(txBytes: Uint8Array): bigint | undefined {
    let tx = this.checkedTxs.get(txBytes);
    if (!tx) {
      try {
        tx = decodeTx(txBytes, this.types);
      } catch {
        return undefined;
      }
    }
    return tx.authInfo.fee?.gasLimit ?? 0n;
  }

  checkTx(txBytes: Uint8Array): Promise<TxResult> {
    return this.lock.run(async () => {
      return (await this.runTx("check", txBytes, this.checkState, this.nextBlockForCheck())).result;
    });
  }

  /** The block a CheckTx runs in: the next height, now, no proposer yet. */
  private nextBlockForCheck(): BlockHeaderInfo {
    return {
      chainId: this.opts.chainId,
      height: this.deps.store.nextHeight,
      time: new Date(),
      proposerAddress: new Uint8Array(),
    };
  }

  /**
   * CheckTx on a throwaway branch of the check state, as RPC `check_tx` asks: the answer the mempool would give,
   * with nothing kept (no sequence taken, no tx added).
   */
  dryCheckTx(txBytes: Uint8Array): Promise<TxResult> {
    return this.lock.run(async () => {
      return (await this.runTx("check", txBytes, this.checkState.branch(), this.nextBlockForCheck())).result;
    });
  }

  /**
   * Runs a tx on a throwaway branch of the latest committed state to measure its gas, as Cosmos' Simulate does.
   * It takes no lock, so block production goes on meanwhile: the branch reads one committed height, and a commit
   * landing mid-way cannot mix the next one in. Bounded in tx size, messages, gas, and simulations at once.
   */
  simulate(txBytes: Uint8Array): Promise<{ result: TxResult; msgResponses: Uint8Array }> {
    const { maxTxBytes } = this.simulationLimits;
    if (txBytes.length > maxTxBytes) {
      const e = ChainError.wrap(
        SdkErrors.TxTooLarge,
        `tx too large. Max size is ${maxTxBytes}, but got ${txBytes.length}`,
      );
      return Promise.resolve({ result: errorResult(e, 0n, 0n), msgResponses: new Uint8Array() });
    }
    return this.simulations.run(async () => {
      const height = this.deps.store.latestHeight;
      if (height === 0) throw noBlockYet();
      const ms = new CacheMultiStore(this.deps.store.view(height));
      const block: BlockHeaderInfo = {
        chainId: this.opts.chainId,
        height: height + 1,
        time: new Date(),
        proposerAddress: new Uint8Array(),
      };
      const { result } = await this.runTx("simulate", txBytes, ms, block);
      return { result, msgResponses: result.data };
    });
  }

  /** Simulations running and waiting for a turn now. */
  get simulationLoad(): GateLoad {
    return this.simulations.load;
  }

  finalizeBlock(req: FinalizeBlockRequest): Promise<FinalizeBlockResult> {
    return this.lock.run(async () => {
      const latest = this.deps.store.latestHeight;
      if (this.pending) throw new Error(`block ${this.pending.height} was finalized but not committed`);
      if (req.height !== this.deps.store.nextHeight)
        throw new Error(
          `cannot finalize block ${req.height}: last committed is ${latest}, the next is ${this.deps.store.nextHeight}`,
        );
      const ms = this.stagedState ?? new CacheMultiStore(this.deps.store.view());
      const block: BlockHeaderInfo = {
        chainId: this.opts.chainId,
        height: req.height,
        time: req.time,
        proposerAddress: req.proposerAddress,
      };
      const events: AbciEvent[] = [];
      const hookCtx = this.context(ms, block, "finalize");
      for (const m of this.deps.modules) await m.preBlock?.(hookCtx);
      for (const m of this.deps.modules) await m.beginBlock?.(hookCtx);
      events.push(...hookCtx.events.events.map((e) => withMode(e, "BeginBlock")));
      const txResults: TxResult[] = [];
      for (const tx of req.txs) txResults.push((await this.runTx("finalize", tx, ms, block)).result);
      const endCtx = this.context(ms, block, "finalize");
      for (const m of this.deps.modules) await m.endBlock?.(endCtx);
      events.push(...endCtx.events.events.map((e) => withMode(e, "EndBlock")));
      const before = await this.committedValidators();
      const validators = await this.validatorSet(ms, block);
      const changes = ms.changeSet();
      const after = this.deps.store.stateAfter(changes);
      this.pending = { height: req.height, changes, after, validators };
      return {
        events,
        txResults,
        appHash: after.appHash,
        validatorUpdates: validatorUpdates(before, validators),
      };
    });
  }

  /**
   * Whether a module will halt the node in block `height` (an upgrade plan due there that this binary has no
   * handler for), read on the committed state.
   */
  async haltsAt(height: number): Promise<boolean> {
    if (this.deps.store.latestHeight === 0) return false;
    const ctx = this.context(
      new CacheMultiStore(this.deps.store.view()),
      { chainId: this.opts.chainId, height, time: new Date(), proposerAddress: new Uint8Array() },
      "query",
    );
    for (const m of this.deps.modules) if (await m.haltsAt?.(ctx)) return true;
    return false;
  }

  /** Persists the finalized block's state together with the caller's records (block, results, indexes). */
  commit(extraOps: BatchOp[] = []): Promise<{ height: number; appHash: Uint8Array }> {
    return this.lock.run(async () => {
      const p = this.pending;
      if (!p) throw new Error("commit without a finalized block");
      await this.deps.store.commit(p.height, p.changes, [...extraOps, ...this.stagedOps], p.after);
      this.lastValidators = p.validators;
      this.pending = null;
      this.stagedState = null;
      this.stagedOps = [];
      this.checkState = new CacheMultiStore(this.deps.store.view());
      return { height: p.height, appHash: p.after.appHash };
    });
  }

  /** The store now holds a snapshot's state (state sync): what the App kept of the state before is dropped. */
  adoptRestoredState(): void {
    this.pending = null;
    this.stagedState = null;
    this.stagedOps = [];
    this.lastValidators = null;
    this.checkState = new CacheMultiStore(this.deps.store.view());
  }

  /** Drops a finalized block that will not be committed (the node halts instead). */
  abandonBlock(): void {
    this.pending = null;
  }

  /** Answers `/sdk.x.Query/Method` (or `/cosmos.…`) with protobuf bytes, at the latest or a retained height. */
  async query(path: string, data: Uint8Array, height = 0): Promise<QueryResult> {
    const q = this.queryAt(path, height);
    let req: Message;
    try {
      req = fromBinary(q.method.input, data);
    } catch (e) {
      throw ChainError.wrap(
        SdkErrors.InvalidRequest,
        `cannot decode ${q.method.input.typeName}: ${(e as Error).message}`,
      );
    }
    const resp = await this.runQuery(q, req);
    return { value: toBinary(q.method.output, resp), height: q.height };
  }

  /**
   * The same query with the request as a message of the method's input type and the answer as one of its
   * output type: for the REST gateway, which has messages on both sides and no use for their bytes.
   */
  async queryMessage(path: string, req: Message, height = 0): Promise<QueryMessageResult> {
    const q = this.queryAt(path, height);
    return { message: await this.runQuery(q, req), output: q.method.output, height: q.height };
  }

  /** The handler for a query path and the state it reads: the height asked for, or the latest. */
  private queryAt(path: string, height: number): PreparedQuery {
    const { name, namespace } = toSdkName(path.startsWith("/") ? path.slice(1) : path);
    const method = this.registrar.queries.get(`/${name}`);
    if (!method) throw ChainError.wrap(SdkErrors.UnknownRequest, `no query handler for path ${path}`);
    const latest = this.deps.store.latestHeight;
    if (latest === 0) throw noBlockYet();
    const h = height === 0 ? latest : height;
    return { method, namespace, height: h, view: this.deps.store.view(h) };
  }

  private async runQuery(q: PreparedQuery, req: Message): Promise<Message> {
    const block: BlockHeaderInfo = {
      chainId: this.opts.chainId,
      height: q.height,
      time: new Date(0),
      proposerAddress: new Uint8Array(),
    };
    const ctx = this.context(
      new CacheMultiStore(q.view),
      block,
      "query",
      new GasMeter(this.opts.queryGasLimit ?? 0, "query gas limit (query-gas-limit in app.toml)"),
    );
    // Written as the SDK's gogoproto writes it; the tx service's Anys are the clients' bytes, as in the SDK.
    const anys = q.method.service.typeName === "sdk.tx.v1beta1.Service" ? undefined : this.types;
    const resp = withNonNullable(q.method.output, await q.method.handler(ctx, req), anys);
    if (q.namespace === "cosmos") rewriteAnyTypeUrls(q.method.output, resp, q.namespace, this.types);
    return resp;
  }

  private async runTx(
    mode: ExecMode,
    txBytes: Uint8Array,
    parent: CacheMultiStore,
    block: BlockHeaderInfo,
  ): Promise<{ result: TxResult; tx?: DecodedTx }> {
    let tx: DecodedTx | undefined = mode === "simulate" ? undefined : this.checkedTxs.get(txBytes);
    if (!tx) {
      try {
        tx = decodeTx(txBytes, this.types);
      } catch (e) {
        return { result: errorResult(toChainError(e), 0n, 0n) };
      }
      if (mode === "check") this.checkedTxs.set(txBytes, tx);
    }
    const gasWanted = tx.authInfo.fee?.gasLimit ?? 0n;
    if (mode !== "finalize" && tx.msgs.length > MAX_TX_MSGS) {
      const e = ChainError.wrap(
        SdkErrors.InvalidRequest,
        `tx has ${tx.msgs.length} messages; this node accepts at most ${MAX_TX_MSGS} per tx`,
      );
      return { result: errorResult(e, gasWanted, 0n), tx };
    }
    // Stateless message checks come first in every mode, as Cosmos' ValidateBasic: what CheckTx refuses for
    // them a block refuses the same way, before the fee is taken.
    try {
      for (const m of tx.msgs) this.registrar.msgs.get(m.typeName)?.validateBasic?.(m.message);
    } catch (e) {
      return { result: errorResult(toChainError(e), gasWanted, 0n), tx };
    }
    const gasMeter =
      mode === "simulate"
        ? new GasMeter(this.simulationLimits.gasLimit, this.simulationLimits.gasLimitName)
        : new GasMeter(Number(gasWanted));
    const anteMs = parent.branch();
    const anteCtx = new Context(
      anteMs,
      block,
      mode === "simulate" ? "simulate" : mode,
      gasMeter,
      new EventManager(),
      this.deps.logger,
    );
    try {
      await this.deps.anteHandler(anteCtx, tx, mode === "simulate");
    } catch (e) {
      return { result: errorResult(toChainError(e), gasWanted, BigInt(gasMeter.consumed)), tx };
    }
    anteMs.write();
    const anteEvents = anteCtx.events.events;
    if (mode === "check") {
      return {
        result: { ...okResult(gasWanted, BigInt(gasMeter.consumed), anteEvents), data: new Uint8Array() },
        tx,
      };
    }

    const msgMs = parent.branch();
    const msgEvents: AbciEvent[] = [];
    const responses: MsgResponse[] = [];
    try {
      for (const [i, m] of tx.msgs.entries()) {
        // A simulation shares the event loop with block production: let it in between messages.
        if (mode === "simulate" && i > 0) await nextTurn();
        const route = this.registrar.msgs.get(m.typeName);
        if (!route)
          throw ChainError.wrap(
            SdkErrors.UnknownRequest,
            `unrecognized message type: ${m.typeName}; message index: ${i}`,
          );
        const ctx = anteCtx.with({ ms: msgMs, events: new EventManager() });
        const resp = await route.handler(ctx, m.message);
        const moduleName = m.typeName.split(".")[1] ?? "";
        const action = `/${m.typeName}`;
        // As Cosmos' baseapp: the first signer is the message's sender, which clients search txs by.
        const sender = msgSigners(m.desc, m.message, this.deps.addresses)[0] ?? "";
        msgEvents.push({
          type: "message",
          attributes: [
            { key: "action", value: action, index: true },
            { key: "sender", value: sender, index: true },
            { key: "module", value: moduleName, index: true },
            { key: "msg_index", value: String(i), index: true },
          ],
        });
        msgEvents.push(
          ...ctx.events.events.map((e) => ({
            ...e,
            attributes: [...e.attributes, { key: "msg_index", value: String(i), index: true }],
          })),
        );
        responses.push({ typeUrl: `/${route.output.typeName}`, value: toBinary(route.output, resp) });
      }
    } catch (e) {
      const ce = toChainError(e);
      if (!(e instanceof ChainError))
        this.deps.logger.error("message handler failed unexpectedly", { err: ce.message });
      return { result: errorResult(ce, gasWanted, BigInt(gasMeter.consumed), anteEvents), tx };
    }
    msgMs.write();
    const data = encodeTxMsgData(responses);
    return {
      result: { ...okResult(gasWanted, BigInt(gasMeter.consumed), [...anteEvents, ...msgEvents]), data },
      tx,
    };
  }
}

/** Genesis app_hash is hex (CometBFT's HexBytes, checked when genesis is read); absent, no hash. */
function genesisAppHash(hex: string | null): Uint8Array {
  return new Uint8Array(Buffer.from(hex ?? "", "hex"));
}

function noBlockYet(): ChainError {
  return new ChainError(
    "sdk",
    26,
    GrpcCode.UNAVAILABLE,
    "no block has been committed yet; query again after the first block",
  );
}

function okResult(gasWanted: bigint, gasUsed: bigint, events: AbciEvent[]): Omit<TxResult, "data"> {
  return { code: 0, codespace: "", log: "", info: "", gasWanted, gasUsed, events };
}

function withMode(e: AbciEvent, mode: string): AbciEvent {
  return { ...e, attributes: [...e.attributes, { key: "mode", value: mode, index: true }] };
}
