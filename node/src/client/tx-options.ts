import { keyringOptions } from "./cli-keyring.js";
import type { QueryArgs } from "./query-options.js";
import { queryOptions } from "./query-options.js";
import { type SignModeName, signModeOption } from "./sign-mode-option.js";

/** Flags of every `chaind tx ...` command (Cosmos names). */
export const txOptions = {
  ...queryOptions,
  from: { type: "string", describe: "key name or address to sign with", demandOption: true },
  "chain-id": { type: "string", describe: "chain id (default: client.toml, else the node's)" },
  fees: { type: "string", describe: "fees to pay, e.g. 2000stake" },
  "gas-prices": { type: "string", describe: "gas prices to derive the fee from, e.g. 0.025stake" },
  "fee-payer": {
    type: "string",
    describe: "address that pays the fee instead of --from; it must sign too (see tx sign)",
  },
  gas: { type: "string", default: "200000", describe: 'gas limit, or "auto" to simulate first' },
  "gas-adjustment": {
    type: "number",
    default: 1.5,
    describe: "multiplier of the simulated gas with --gas auto",
  },
  memo: { type: "string", default: "", describe: "memo of the transaction" },
  note: { type: "string", describe: "alias of --memo" },
  ...keyringOptions,
  ...signModeOption,
  yes: {
    alias: "y",
    type: "boolean",
    default: true,
    describe: "skip confirmation (always on: no prompt is asked)",
  },
  "generate-only": { type: "boolean", default: false, describe: "print the unsigned transaction and stop" },
  "broadcast-mode": { alias: "b", type: "string", choices: ["sync", "async"], describe: "sync or async" },
  wait: { type: "boolean", default: false, describe: "wait until the transaction is in a block" },
  "dry-run": {
    type: "boolean",
    default: false,
    describe: "ignore the --gas flag and perform a simulation of a transaction, but don't broadcast it",
  },
} as const;

export interface TxArgs extends QueryArgs {
  from: string;
  "chain-id"?: string;
  fees?: string;
  "gas-prices"?: string;
  "fee-payer"?: string;
  gas: string;
  "gas-adjustment": number;
  memo: string;
  note?: string;
  "keyring-backend"?: string;
  "keyring-dir"?: string;
  "sign-mode": SignModeName;
  yes: boolean;
  "generate-only": boolean;
  "broadcast-mode"?: "sync" | "async";
  wait: boolean;
  "dry-run": boolean;
}
