import { describe, expect, it } from "vitest";
import { BlockStoreKeys, txLocationCodec } from "../../../node/src/consensus/block-store-keys.js";
import { AuthKeys } from "../../../node/src/modules/auth/auth-keys.js";
import { BankKeys } from "../../../node/src/modules/bank/bank-keys.js";
import { GovKeys } from "../../../node/src/modules/gov/gov-keys.js";
import { StakingKeys } from "../../../node/src/modules/staking/staking-keys.js";
import { UpgradeKeys } from "../../../node/src/modules/upgrade/upgrade-keys.js";
import type { KeyCodec } from "../../../node/src/store/key-codec.js";
import { PrefixedKey } from "../../../node/src/store/prefixed-key.js";
import {
  changesUpTo,
  GENESIS_KEY,
  META_KEY,
  StateStoreKeys,
} from "../../../node/src/store/state-store-keys.js";
import { safeUint64Key, uint64Key } from "../../../node/src/store/uint-keys.js";

/**
 * The exact bytes of every key layout on disk. Homes written by earlier versions hold these bytes and their
 * app hashes cover them: a layout that encodes differently fails here, before it misreads an existing home.
 * The vectors were produced by the hand-written encoders the codecs replaced.
 */
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const unhex = (s: string) => new Uint8Array(Buffer.from(s, "hex"));
const utf8hex = (s: string) => Buffer.from(s).toString("hex");

const ALICE = unhex("33b94b70bbd434f0ad01925669bedf3469832b58");
const VALIDATOR = unhex("c3a1dc894961e9baf689de4830a57e902bb10514");
/** A 32-byte address holding 0x00 (module and contract addresses are 32 bytes). */
const LONG = Uint8Array.from({ length: 32 }, (_, i) => i);
const LONG_HEX = hex(LONG);
const HASH = new Uint8Array(32).fill(0xab);

/** Encodes to exactly `expected`, and those bytes decode back to the value. */
function pin<T>(layout: KeyCodec<T>, value: T, expected: string): void {
  expect(hex(layout.encode(value))).toBe(expected);
  expect(layout.decode(unhex(expected))).toEqual(value);
}

describe("store key layouts keep their bytes", () => {
  it("state store: latest values, versions, change log, commit record", () => {
    const { latest, versions, changes } = StateStoreKeys;
    pin(
      latest,
      ["bank", unhex(`0214${hex(ALICE)}${utf8hex("stake")}`)],
      `0162616e6b0000021433b94b70bbd434f0ad01925669bedf3469832b587374616b65`,
    );
    pin(latest, ["a\0b", unhex("00ff00")], "016100ff62000000ff00");
    expect(hex(latest.prefixOf("gov"))).toBe("01676f760000");
    pin(versions, ["acc", unhex("0100ff00"), 5], "0261636300000100ffff00ff00000000000000000005");
    pin(
      versions,
      ["upgrade", unhex("03"), Number.MAX_SAFE_INTEGER],
      "02757067726164650000030000001fffffffffffff",
    );
    expect(hex(versions.prefixOf("acc", unhex("0100")))).toBe("0261636300000100ff0000");
    pin(changes, [7, "staking", unhex("410001")], "0300000000000000077374616b696e670000410001");
    pin(changes, [2 ** 40, "a\0", unhex("00")], "0300000100000000006100ff000000");
    expect(changesUpTo(9)).toEqual({ gte: unhex("03"), lt: unhex("03000000000000000a") });
    pin(StateStoreKeys.historyHeads, ["acc", unhex("0100ff00")], "0461636300000100ffff00ff0000");
    pin(
      StateStoreKeys.historyNodes,
      ["acc", unhex("0100ff00"), 2, 5],
      "0561636300000100ffff00ff0000000000020000000000000005",
    );
    expect(hex(META_KEY)).toBe("00636f6d6d6974");
    expect(hex(GENESIS_KEY)).toBe("0067656e65736973");
  });

  it("block store: blocks, metas, results, hash indexes, event index, tx locations", () => {
    const { blocks, blockMetas, blockHashes, results, txIndex, txEvents } = BlockStoreKeys;
    pin(blocks, 1, "100000000000000001");
    pin(blocks, 2 ** 32 + 5, "100000000100000005");
    pin(blockMetas, 12, "11000000000000000c");
    pin(results, 3, "130000000000000003");
    pin(blockHashes, HASH, `12${"ab".repeat(32)}`);
    pin(txIndex, HASH, `14${"ab".repeat(32)}`);
    pin(safeUint64Key, 7, "0000000000000007");
    pin(txLocationCodec, [7, 3], "000000000000000700000003");
    pin(txLocationCodec, [2 ** 40, 0xffff_ffff], "0000010000000000ffffffff");
    pin(
      txEvents,
      ["transfer.recipient", "sdk1xyz", 7],
      "157472616e736665722e726563697069656e740073646b3178797a000000000000000007",
    );
    pin(
      txEvents,
      ["message.action", "/sdk.bank.v1beta1.MsgSend", 1],
      "156d6573736167652e616374696f6e002f73646b2e62616e6b2e763162657461312e4d736753656e64000000000000000001",
    );
    expect(hex(txEvents.prefixOf("transfer.recipient", "sdk1xyz"))).toBe(
      "157472616e736665722e726563697069656e740073646b3178797a00",
    );
  });

  it("staking: validators, delegations, unbondings and the unbonding queue", () => {
    const { validator, delegation, unbonding, unbondingQueue, params } = StakingKeys;
    pin(validator, VALIDATOR, "2114c3a1dc894961e9baf689de4830a57e902bb10514");
    pin(validator, LONG, `2120${LONG_HEX}`);
    pin(
      delegation,
      [ALICE, VALIDATOR],
      "311433b94b70bbd434f0ad01925669bedf3469832b5814c3a1dc894961e9baf689de4830a57e902bb10514",
    );
    expect(hex(delegation.prefixOf(ALICE))).toBe("311433b94b70bbd434f0ad01925669bedf3469832b58");
    pin(
      unbonding,
      [ALICE, VALIDATOR],
      "321433b94b70bbd434f0ad01925669bedf3469832b5814c3a1dc894961e9baf689de4830a57e902bb10514",
    );
    pin(unbonding, [LONG, VALIDATOR], `3220${LONG_HEX}14c3a1dc894961e9baf689de4830a57e902bb10514`);
    pin(
      unbondingQueue,
      [new Date("2024-01-01T00:00:00.500Z"), ALICE, VALIDATOR],
      "410000018cc251f5f41433b94b70bbd434f0ad01925669bedf3469832b5814c3a1dc894961e9baf689de4830a57e902bb10514",
    );
    pin(
      unbondingQueue,
      [new Date(0), LONG, VALIDATOR],
      `41000000000000000020${LONG_HEX}14c3a1dc894961e9baf689de4830a57e902bb10514`,
    );
    expect(hex(params)).toBe("51");
  });

  it("gov: proposals, both queues, deposits, votes, the next id and the page cursor", () => {
    const { proposal, activeQueue, inactiveQueue, deposit, vote, nextId, params } = GovKeys;
    pin(proposal, 1n, "000000000000000001");
    pin(proposal, 2n ** 40n + 3n, "000000010000000003");
    pin(activeQueue, [1704067201000, 1n], "010000018cc251f7e80000000000000001");
    pin(inactiveQueue, [1704067202500, 2n], "020000018cc251fdc40000000000000002");
    pin(deposit, [1n, ALICE], "10000000000000000133b94b70bbd434f0ad01925669bedf3469832b58");
    pin(deposit, [7n, LONG], `100000000000000007${LONG_HEX}`);
    expect(hex(deposit.prefixOf(1n))).toBe("100000000000000001");
    pin(vote, [1n, VALIDATOR], "200000000000000001c3a1dc894961e9baf689de4830a57e902bb10514");
    expect(hex(vote.prefixOf(3n))).toBe("200000000000000003");
    expect(hex(nextId)).toBe("03");
    expect(hex(params)).toBe("30");
    // Values: the next proposal id, and the next_key of a proposals/votes/deposits page (the next index).
    pin(uint64Key, 5n, "0000000000000005");
    pin(uint64Key, 2n ** 64n - 1n, "ffffffffffffffff");
    pin(uint64Key, 100n, "0000000000000064");
  });

  it("auth: accounts, accounts by number", () => {
    pin(AuthKeys.account, ALICE, "0133b94b70bbd434f0ad01925669bedf3469832b58");
    pin(AuthKeys.account, LONG, `01${LONG_HEX}`);
    pin(AuthKeys.accountByNumber, 0n, "030000000000000000");
    pin(AuthKeys.accountByNumber, 2n ** 33n, "030000000200000000");
    expect(hex(AuthKeys.params)).toBe("00");
    expect(hex(AuthKeys.nextAccountNumber)).toBe("02");
  });

  it("bank: supply and balances", () => {
    pin(BankKeys.supply, "stake", "007374616b65");
    const ibc = "ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2";
    pin(BankKeys.supply, ibc, `00${utf8hex(ibc)}`);
    pin(BankKeys.balance, [ALICE, "stake"], "021433b94b70bbd434f0ad01925669bedf3469832b587374616b65");
    pin(BankKeys.balance, [LONG, "foo"], `0220${LONG_HEX}666f6f`);
    expect(hex(BankKeys.balance.prefixOf(ALICE))).toBe("021433b94b70bbd434f0ad01925669bedf3469832b58");
    expect(hex(BankKeys.params)).toBe("05");
  });

  it("upgrade: plan, done markers, module versions, protocol version", () => {
    pin(UpgradeKeys.done, [17n, "v2"], "0100000000000000117632");
    pin(UpgradeKeys.done, [2n ** 33n, "v1.2.0-rc1"], "01000000020000000076312e322e302d726331");
    pin(UpgradeKeys.versions, "staking", "027374616b696e67");
    expect(hex(UpgradeKeys.plan)).toBe("00");
    expect(hex(UpgradeKeys.protocol)).toBe("03");
  });

  it("no two layouts of one store (or of the LevelDB's own keyspaces) begin with the same prefix byte", () => {
    const stores = {
      leveldb: { ...StateStoreKeys, ...BlockStoreKeys },
      StakingKeys,
      GovKeys,
      AuthKeys,
      BankKeys,
      UpgradeKeys,
    };
    for (const [name, layouts] of Object.entries(stores)) {
      const first = Object.values(layouts).map(
        (l) => (l instanceof PrefixedKey ? l.prefix : (l as Uint8Array))[0],
      );
      expect(new Set(first).size, name).toBe(first.length);
    }
  });
});
