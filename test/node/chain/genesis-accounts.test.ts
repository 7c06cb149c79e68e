import { describe, expect, it } from "vitest";
import { Coins } from "../../../node/src/app/coins.js";
import { addGenesisAccount, addGenesisAccounts } from "../../../node/src/chain/genesis-accounts.js";
import type { GenesisDoc } from "../../../node/src/config/genesis.js";

const emptyGenesis = () => ({ app_state: {} }) as unknown as GenesisDoc;
// biome-ignore lint/suspicious/noExplicitAny: the app_state sections are plain JSON here
const state = (g: GenesisDoc) => g.app_state as any;

describe("genesis accounts", () => {
  it("adds accounts in bulk, once each, and refuses a second add of one address unless topping up", () => {
    const g = emptyGenesis();
    const entries = Array.from({ length: 20_000 }, (_, i) => ({
      address: `sdk1account${i}`,
      coins: Coins.parse("5stake"),
    }));
    addGenesisAccounts(g, entries, false);
    expect(state(g).auth.accounts).toHaveLength(20_000);
    expect(state(g).bank.balances[19_999]).toEqual({
      address: "sdk1account19999",
      coins: [{ denom: "stake", amount: "5" }],
    });
    expect(() => addGenesisAccount(g, "sdk1account7", Coins.parse("1stake"), false)).toThrow(
      "cannot add account at existing address sdk1account7",
    );
    addGenesisAccounts(
      g,
      [
        { address: "sdk1account7", coins: Coins.parse("1stake,2atom") },
        { address: "sdk1account7", coins: Coins.parse("1stake") },
      ],
      true,
    );
    expect(state(g).bank.balances[7].coins).toEqual([
      { denom: "atom", amount: "2" },
      { denom: "stake", amount: "7" },
    ]);
    expect(state(g).auth.accounts).toHaveLength(20_000);
    expect(state(g).bank.supply).toEqual([]);
  });
});
