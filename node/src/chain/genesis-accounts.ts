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
  addGenesisAccounts(genesis, [{ address, coins }], append);
}

/**
 * Adds many funded accounts at once: the document is indexed by address once, so a genesis with 100k accounts
 * is built in linear time.
 */
export function addGenesisAccounts(
  genesis: GenesisDoc,
  entries: readonly { address: string; coins: Coins }[],
  append: boolean,
): void {
  genesis.app_state.auth ??= {};
  genesis.app_state.bank ??= {};
  const auth = genesis.app_state.auth as AuthGenesisJson;
  const bank = genesis.app_state.bank as BankGenesisJson;
  auth.accounts ??= [];
  bank.balances ??= [];
  // Bech32 is one case or the other: lower case names each address once, as its bytes would.
  const id = (address: string) => address.toLowerCase();
  const balances = new Map(bank.balances.map((b) => [id(b.address), b]));
  const accounts = new Set(auth.accounts.map((a) => id(a.address)));
  for (const { address, coins } of entries) {
    const existing = balances.get(id(address));
    if (existing) {
      if (!append) throw new Error(`cannot add account at existing address ${address}`);
      existing.coins = Coins.from(existing.coins).add(coins).toProto();
    } else {
      const added = { address, coins: coins.toProto() };
      bank.balances.push(added);
      balances.set(id(address), added);
    }
    if (!accounts.has(id(address))) {
      auth.accounts.push({
        "@type": "/sdk.auth.v1beta1.BaseAccount",
        address,
        pub_key: null,
        account_number: "0",
        sequence: "0",
      });
      accounts.add(id(address));
    }
  }
  // Supply is derived from balances at InitChain; a stale declared supply would fail validation.
  bank.supply = [];
}
