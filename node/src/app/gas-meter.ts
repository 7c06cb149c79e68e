import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";

/** Gas costs of store access, with Cosmos SDK's KVGasConfig values so gas estimates look familiar. */
export const KV_GAS = {
  hasCost: 1000,
  deleteCost: 1000,
  readCostFlat: 1000,
  readCostPerByte: 3,
  writeCostFlat: 2000,
  writeCostPerByte: 30,
  iterNextCostFlat: 30,
} as const;

/** Counts gas against a limit; 0 means unlimited (genesis, begin/end block). */
export class GasMeter {
  private used = 0;
  constructor(
    readonly limit: number,
    /** Says whose limit it is when it is the node's, not the tx's (simulations, queries). */
    private readonly limitName?: string,
  ) {}

  get consumed(): number {
    return this.used;
  }

  consume(amount: number, descriptor: string): void {
    this.used += amount;
    if (this.limit > 0 && this.used > this.limit) {
      throw ChainError.wrap(
        SdkErrors.OutOfGas,
        this.limitName
          ? `out of gas in location: ${descriptor}; gasUsed: ${this.used}, ${this.limitName}: ${this.limit}`
          : `out of gas in location: ${descriptor}; gasWanted: ${this.limit}, gasUsed: ${this.used}`,
      );
    }
  }
}
