import { Coins } from "../app/coins.js";
import type { GenesisDoc } from "../config/genesis.js";

interface AuthGenesisJson {
  accounts?: { "@type": string; address: string; [k: string]: unknown }[];
}
interface BankGenesisJson {
  balances?: { address: string; coins: { denom: string; amount: string }[] }[];
  supply?: { denom: string; amount: string }[];
}

/** Adds (or, with `append`, tops up) a funded account in a genesis document, as `add-genesis-account` does. */
export function addGenesisAccount(genesis: GenesisDoc, address: string, coins: Coins, append: boolean): void {
  genesis.app_state.auth ??= {};
  genesis.app_state.bank ??= {};
  const auth = genesis.app_state.auth as AuthGenesisJson;
  const bank = genesis.app_state.bank as BankGenesisJson;
  auth.accounts ??= [];
  bank.balances ??= [];
  const existing = bank.balances.find((b) => b.address === address);
  if (existing) {
    if (!append) throw new Error(`cannot add account at existing address ${address}`);
    existing.coins = Coins.from(existing.coins).add(coins).toProto();
  } else {
    bank.balances.push({ address, coins: coins.toProto() });
  }
  if (!auth.accounts.some((a) => a.address === address)) {
    auth.accounts.push({
      "@type": "/sdk.auth.v1beta1.BaseAccount",
      address,
      pub_key: null,
      account_number: "0",
      sequence: "0",
    });
  }
  // Supply is derived from balances at InitChain; a stale declared supply would fail validation.
  bank.supply = [];
}
