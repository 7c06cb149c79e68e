import { AddressCodec } from "../app/address-codec.js";
import { DEC_ONE, formatDec } from "../app/dec.js";
import type { GenesisDoc } from "../config/genesis.js";
import { DEFAULT_BECH32_PREFIX } from "../config/genesis.js";
import type { WeightedValidator } from "../consensus/validator-set-hash.js";
import { moduleAddress } from "../crypto/address.js";
import { BONDED_POOL } from "../modules/staking/staking-keeper.js";

interface StakingGenesisJson {
  params?: { bond_denom?: string };
  validators?: unknown[];
  delegations?: unknown[];
}
interface BankGenesisJson {
  balances?: { address: string; coins: { denom: string; amount: string }[] }[];
  supply?: unknown[];
}

/** The staking module's bond denom in a genesis document ("stake" when it names none). */
export function genesisBondDenom(genesis: GenesisDoc): string {
  return (genesis.app_state.staking as StakingGenesisJson | undefined)?.params?.bond_denom || "stake";
}

/**
 * Makes `operator` (an account address) a bonded validator at genesis, signing blocks with `consensusPubKey`
 * (the ed25519 key in priv_validator_key.json) and self-delegating `amount` of the bond denom, held by the
 * bonded pool: what a gentx collected into genesis amounts to.
 */
export function addGenesisValidator(
  genesis: GenesisDoc,
  v: { operator: string; consensusPubKey: Uint8Array; moniker: string; amount: bigint },
): void {
  const prefix = genesis.bech32_prefix ?? DEFAULT_BECH32_PREFIX;
  const accounts = new AddressCodec(prefix);
  const valoper = new AddressCodec(`${prefix}valoper`).toString(accounts.fromString(v.operator, "operator"));
  genesis.app_state.staking ??= {};
  genesis.app_state.bank ??= {};
  const staking = genesis.app_state.staking as StakingGenesisJson;
  const bank = genesis.app_state.bank as BankGenesisJson;
  const denom = genesisBondDenom(genesis);
  staking.validators ??= [];
  staking.delegations ??= [];
  const shares = formatDec(v.amount * DEC_ONE);
  staking.validators.push({
    operator_address: valoper,
    consensus_pubkey: {
      "@type": "/sdk.crypto.ed25519.PubKey",
      key: Buffer.from(v.consensusPubKey).toString("base64"),
    },
    jailed: false,
    status: "BOND_STATUS_BONDED",
    tokens: v.amount.toString(),
    delegator_shares: shares,
    description: { moniker: v.moniker },
    min_self_delegation: "1",
  });
  staking.delegations.push({ delegator_address: v.operator, validator_address: valoper, shares });
  bank.balances ??= [];
  const pool = accounts.toString(moduleAddress(BONDED_POOL));
  const held = bank.balances.find((b) => b.address === pool);
  const coin = held?.coins.find((c) => c.denom === denom);
  if (coin) coin.amount = (BigInt(coin.amount) + v.amount).toString();
  else if (held) held.coins.push({ denom, amount: v.amount.toString() });
  else bank.balances.push({ address: pool, coins: [{ denom, amount: v.amount.toString() }] });
  bank.supply = [];
}

/** Shortens governance for local testnets: deposit and voting periods, and a small minimum deposit. */
export function setGovPeriods(
  genesis: GenesisDoc,
  g: { votingPeriodMs: number; depositPeriodMs: number; minDeposit: string },
): void {
  genesis.app_state.gov ??= {};
  const gov = genesis.app_state.gov as { params?: Record<string, unknown> };
  gov.params ??= {};
  gov.params.voting_period = `${g.votingPeriodMs / 1000}s`;
  // Expedited votes must be shorter than regular ones: half as long, as testnets usually set them.
  gov.params.expedited_voting_period = `${g.votingPeriodMs / 2000}s`;
  gov.params.max_deposit_period = `${g.depositPeriodMs / 1000}s`;
  const m = /^(\d+)([a-zA-Z][a-zA-Z0-9/:._-]*)$/.exec(g.minDeposit);
  if (!m) throw new Error(`bad minimum deposit ${g.minDeposit}`);
  gov.params.min_deposit = [{ denom: m[2], amount: m[1] }];
}

/** CometBFT's voting power of bonded tokens: one unit per 10^6 (the SDK's default power reduction). */
export const POWER_REDUCTION = 1_000_000n;

interface ConsensusValidatorJson {
  pub_key?: { type?: string; value?: string };
  power?: string;
}
interface StakingValidatorJson {
  consensus_pubkey?: { "@type"?: string; key?: string };
  status?: string;
  tokens?: string;
}

/**
 * The validators a genesis starts the chain with, as a light client trusts them: genesis `consensus.validators`
 * when it lists them (an exported genesis does), else staking's bonded genesis validators (what gentxs and
 * `testnet` make), with their power. Keys other than ed25519 are left out.
 */
export function genesisTrustedValidators(genesis: GenesisDoc): WeightedValidator[] {
  const listed = (genesis.consensus.validators ?? []) as ConsensusValidatorJson[];
  if (listed.length > 0)
    return listed.flatMap((v) =>
      v.pub_key?.type === "tendermint/PubKeyEd25519" && v.pub_key.value && /^\d+$/.test(v.power ?? "")
        ? [{ pubKey: new Uint8Array(Buffer.from(v.pub_key.value, "base64")), votingPower: BigInt(v.power!) }]
        : [],
    );
  const staking = (genesis.app_state.staking as { validators?: StakingValidatorJson[] } | undefined)
    ?.validators;
  return (staking ?? []).flatMap((v) =>
    v.status === "BOND_STATUS_BONDED" &&
    v.consensus_pubkey?.["@type"]?.endsWith(".crypto.ed25519.PubKey") &&
    v.consensus_pubkey.key &&
    /^\d+$/.test(v.tokens ?? "")
      ? [
          {
            pubKey: new Uint8Array(Buffer.from(v.consensus_pubkey.key, "base64")),
            votingPower: BigInt(v.tokens!) / POWER_REDUCTION,
          },
        ]
      : [],
  );
}
