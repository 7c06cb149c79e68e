import type { Logger } from "@chaind/core/logger";
import type { KVStore, MultiStore } from "../store/multi-store.js";
import { EventManager } from "./events.js";
import { GasKVStore } from "./gas-kv-store.js";
import type { GasMeter } from "./gas-meter.js";

/** The block a state transition runs in. */
export interface BlockHeaderInfo {
  chainId: string;
  height: number;
  time: Date;
  proposerAddress: Uint8Array;
}

/** genesis: InitChain; check: CheckTx; simulate: gas estimation; finalize: block execution; query: reads. */
export type ExecMode = "genesis" | "check" | "simulate" | "finalize" | "query";

/** Everything a keeper call may touch: state (gas-metered), the block, gas, events, logging. */
export class Context {
  constructor(
    readonly ms: MultiStore,
    readonly block: BlockHeaderInfo,
    readonly mode: ExecMode,
    readonly gasMeter: GasMeter,
    readonly events: EventManager,
    readonly logger: Logger,
  ) {}

  /** A module's store, charging gas for every access. */
  kv(storeName: string): KVStore {
    return new GasKVStore(this.ms.store(storeName), this.gasMeter);
  }

  with(parts: { ms?: MultiStore; gasMeter?: GasMeter; events?: EventManager }): Context {
    return new Context(
      parts.ms ?? this.ms,
      this.block,
      this.mode,
      parts.gasMeter ?? this.gasMeter,
      parts.events ?? this.events,
      this.logger,
    );
  }

  withFreshEvents(): Context {
    return this.with({ events: new EventManager() });
  }
}
