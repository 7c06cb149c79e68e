import { join } from "node:path";
import { Coins } from "chaind/app/coins";
import { addGenesisAccounts } from "chaind/chain/genesis-accounts";
import { readGenesis, writeGenesis } from "chaind/config/genesis";
import type { BenchAccount } from "./bench-accounts.js";

/**
 * Funds the benchmark's senders in the genesis `chaind testnet --validators N` wrote, before the network's first
 * start: added as `add-genesis-account` adds them, then listed first, so their account numbers are their
 * indexes whatever N is (as in makeSendsHome's home) and the same pre-signed sends are valid on every network.
 * Node 0's genesis, edited once, is written to every home: the nodes must agree on it byte for byte.
 */
export function fundSendersInNetworkGenesis(dir: string, validators: number, senders: BenchAccount[]): void {
  const homes = Array.from({ length: validators }, (_, i) => join(dir, `node${i}`, "config", "genesis.json"));
  const genesis = readGenesis(homes[0]);
  const coins = Coins.parse("1000000000000stake");
  addGenesisAccounts(
    genesis,
    senders.map((s) => ({ address: s.address, coins })),
    false,
  );
  // Every account of this genesis has account_number 0: InitChain numbers them in file order.
  const auth = genesis.app_state.auth as { accounts: { address: string }[] };
  const funded = new Set(senders.map((s) => s.address));
  auth.accounts = [
    ...senders.map((s) => auth.accounts.find((a) => a.address === s.address)!),
    ...auth.accounts.filter((a) => !funded.has(a.address)),
  ];
  for (const path of homes) writeGenesis(path, genesis);
}
