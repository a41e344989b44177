import { readFile } from "node:fs/promises";
import { money } from "@/lib/money";
import { Ledger } from "../ledger/ledger";
import { applyRefund } from "../ledger/refunds";
import { DUNNING_RETRY_OFFSETS, reschedule } from "../ledger/renewals";
import type { GameState, SubscriptionState } from "../ledger/types";
import { addInterval, DAY } from "../time";
import { amountOf, instant, ScenarioError } from "./load-values";
import { loadPeriod } from "./load-period";
import { scenarioSchema, type Scenario, type SubscriptionScenario } from "./schema";

export { ScenarioError } from "./load-values";

/** Key rotation grace of the spec: "the old key keeps working for 7 days after rotation". */
export const ROTATION_GRACE = 7 * DAY;

export type ExtraWebhook = { url: string; secret: string; events: string[] };

export type LoadOptions = {
  /** Registered on every game in addition to the scenario's own endpoints (the `--webhook-url` flag). */
  extraWebhooks?: ExtraWebhook[];
};

export async function readScenarioFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ScenarioError(`cannot read scenario file ${path}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ScenarioError(`scenario file ${path} is not JSON: ${(error as Error).message}`);
  }
}

export function parseScenario(input: unknown): Scenario {
  const parsed = scenarioSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? issue.path.join(".") || "(root)" : "(root)";
    throw new ScenarioError(`scenario invalid at ${where}: ${issue?.message ?? "unknown problem"}`);
  }
  return parsed.data;
}

/**
 * Builds a ledger from a scenario. Recorded legs are computed by recordSettlement and refunds by applyRefund: the same
 * code that records live renewals and refunds. Refunds of the file are history: they do not move wallet balances
 * (balance_coins is the current balance).
 */
export function loadScenario(input: unknown, options: LoadOptions = {}): Ledger {
  const scenario = parseScenario(input);
  const clock = instant(scenario.clock, "clock");
  const ledger = new Ledger(clock);

  scenario.games.forEach((g, index) => {
    if (ledger.games.has(g.game_id)) throw new ScenarioError(`games.${index}: duplicate game_id ${g.game_id}`);
    const rotatedAt = g.previous_secret_rotated_at ? instant(g.previous_secret_rotated_at, `games.${index}`) : clock;
    const webhooks = [...g.webhooks, ...(options.extraWebhooks ?? [])].map((w, i) => ({
      webhookId: (w as { webhook_id?: string }).webhook_id ?? `wh_${g.game_id}_${i + 1}`,
      url: w.url,
      events: w.events,
      secrets: [{ version: 1, secret: w.secret, validUntil: null }],
    }));
    const game: GameState = {
      gameId: g.game_id,
      name: g.name,
      status: g.status,
      environment: g.environment,
      secret: g.secret,
      previousSecret: g.previous_secret ?? null,
      previousSecretValidUntil: g.previous_secret ? rotatedAt + ROTATION_GRACE : null,
      feePercent: money(g.fee_percent),
      currencyId: 1,
      currencyName: g.currency_name,
      webhooks,
      settledIndex: [],
      settledDirty: false,
      reversalIndex: [],
      reversalDirty: true,
    };
    ledger.addGame(game);
  });

  scenario.players.forEach((p, index) => {
    const where = `players.${index}`;
    if (!ledger.games.has(p.game_id)) throw new ScenarioError(`${where}: unknown game ${p.game_id}`);
    if (ledger.player(p.game_id, p.player_id)) throw new ScenarioError(`${where}: duplicate player ${p.player_id}`);
    if (ledger.playerByEmail(p.game_id, p.email)) throw new ScenarioError(`${where}: duplicate email ${p.email}`);
    ledger.addPlayer({
      gameId: p.game_id,
      playerId: p.player_id,
      email: p.email,
      name: p.name,
      identityId: p.identity_id,
      dateJoined: instant(p.date_joined, where),
      balanceCoins: money(p.balance_coins),
      reservedCoins: money(p.reserved_coins),
      balanceUpdatedAt: clock,
    });
  });

  scenario.cards.forEach((c, index) => {
    const where = `cards.${index}`;
    if (!ledger.games.has(c.game_id)) throw new ScenarioError(`${where}: unknown game ${c.game_id}`);
    if (ledger.cards.has(c.card_id)) throw new ScenarioError(`${where}: duplicate card_id ${c.card_id}`);
    ledger.addCard({
      cardId: c.card_id,
      gameId: c.game_id,
      playerId: c.player_id,
      lastFour: c.last_four,
      brand: c.brand,
      expMonth: c.exp_month,
      expYear: c.exp_year,
      createdAt: instant(c.created_at, where),
      removed: c.removed,
    });
  });

  for (const [index, s] of scenario.subscriptions.entries()) loadSubscription(ledger, s, `subscriptions.${index}`);
  return ledger;
}

function loadSubscription(ledger: Ledger, s: SubscriptionScenario, where: string): void {
  const clock = ledger.now;
  if (!ledger.games.has(s.game_id)) throw new ScenarioError(`${where}: unknown game ${s.game_id}`);
  if (ledger.subscriptions.has(s.subscription_id))
    throw new ScenarioError(`${where}: duplicate subscription_id ${s.subscription_id}`);
  const createdAt = instant(s.created_at, where);
  const amount = money(s.amount_usd);
  const terminal = s.status === "canceled" || s.status === "expired";
  const periodsIn = [...s.periods].sort((a, b) => a.period_seq - b.period_seq);
  const first = periodsIn[0];
  const anchor = first ? instant(first.period_start, `${where}.periods.0`) : createdAt;
  let cardId: number | null = s.card_id ?? null;
  if (s.card_id === undefined && s.funding_rail === "card" && !s.wallet_only) {
    const cards = ledger.cardsOf(s.game_id, s.player_id).filter((card) => !card.removed);
    cardId = cards.length > 0 ? (cards[cards.length - 1]?.cardId ?? null) : null;
  }
  const sub: SubscriptionState = {
    gameId: s.game_id,
    subscriptionId: s.subscription_id,
    playerId: s.player_id,
    clientRequestId: s.client_request_id ?? `create-${s.subscription_id.toLowerCase()}`,
    status: s.status,
    amountUsd: amount,
    pendingAmountUsd: s.pending_amount_usd ? money(s.pending_amount_usd) : null,
    lastAgreedAmountUsd: s.last_agreed_amount_usd ? money(s.last_agreed_amount_usd) : amount,
    interval: s.interval,
    intervalCount: s.interval_count,
    anchorDay: new Date(anchor).getUTCDate(),
    itemId: s.item_id,
    itemName: s.item_name,
    currentPeriodStart: createdAt,
    currentPeriodEnd: addInterval(createdAt, s.interval, s.interval_count),
    periodSeq: 0,
    nextChargeAt: null,
    cancelAtPeriodEnd: s.cancel_at_period_end,
    trialEnd: s.trial_end ? instant(s.trial_end, where) : null,
    canceledAt: null,
    endedAt: null,
    walletOnly: s.wallet_only,
    cardId: s.wallet_only ? null : cardId,
    fundingRail: s.funding_rail,
    pcstoreAgreementStatus:
      s.funding_rail === "pcstore"
        ? (s.pcstore_agreement_status ??
          (s.status === "pending_pcstore_authorization" ? "pending" : terminal ? "canceled" : "active"))
        : null,
    metadata: s.metadata,
    createdAt,
    updatedAt: createdAt,
    revenueShare: s.revenue_share
      ? {
          recipientPlayerId: s.revenue_share.recipient_player_id,
          percent: money(s.revenue_share.percent),
          updatedAt: s.revenue_share.updated_at ? instant(s.revenue_share.updated_at, where) : createdAt,
        }
      : null,
    periods: [],
    forcedOutcomes: [],
    scheduleToken: 0,
  };
  if (sub.trialEnd !== null && periodsIn.length === 0) sub.currentPeriodEnd = sub.trialEnd;
  ledger.addSubscription(sub);

  const seen = new Set<number>();
  periodsIn.forEach((p, i) => {
    if (seen.has(p.period_seq)) throw new ScenarioError(`${where}.periods.${i}: duplicate period_seq ${p.period_seq}`);
    seen.add(p.period_seq);
    loadPeriod(ledger, sub, p, `${where}.periods.${i}`);
  });

  const refunds = s.refunds
    .map((r, i) => ({ r, i, at: instant(r.refunded_at, `${where}.refunds.${i}`) }))
    .sort((a, b) => a.at - b.at || a.i - b.i);
  for (const { r, i, at } of refunds) {
    const rw = `${where}.refunds.${i}`;
    const period = sub.periods.find((p) => p.periodSeq === r.period_seq);
    if (!period || period.paidAt === null) throw new ScenarioError(`${rw}: period ${r.period_seq} was never collected`);
    if (at < period.paidAt) throw new ScenarioError(`${rw}: refunded_at is before the period's paid_at`);
    if (at > clock) throw new ScenarioError(`${rw}: refunded_at is after the clock`);
    const refundAmount = amountOf(r.amount_usd);
    const remaining = period.amountUsd.minus(period.refundedTotalUsd);
    if (refundAmount.lte(0) || refundAmount.gt(remaining)) {
      throw new ScenarioError(`${rw}: amount ${r.amount_usd} exceeds the remaining refundable ${remaining.toFixed(2)}`);
    }
    applyRefund(ledger, period, {
      at,
      amountUsd: refundAmount,
      clientRequestId: r.client_request_id ?? null,
      reason: r.reason ?? null,
      receipt: r.receipt,
      live: false,
      loading: true,
    });
  }
  periodsIn.forEach((p, i) => {
    const period = sub.periods.find((candidate) => candidate.periodSeq === p.period_seq);
    if (p.status === "refunded" && period && period.status !== "refunded") {
      throw new ScenarioError(`${where}.periods.${i}: status refunded needs refunds adding up to the period amount`);
    }
  });

  // The subscription's current state follows its latest period unless the file says otherwise. As when a renewal is
  // declined live, a period in dunning (or the failed one an expiry ended at) leaves the current window at the last
  // one paid; another unpaid latest period of a live subscription stays current, so its next charge is after it.
  const latest = sub.periods[sub.periods.length - 1];
  const paid = sub.periods.filter((p) => p.paidAt !== null);
  sub.periodSeq = paid.reduce((max, p) => Math.max(max, p.periodSeq), 0);
  const unpaidLatest = latest?.paidAt === null && (latest.status === "pending" || terminal);
  const current = unpaidLatest ? (paid[paid.length - 1] ?? latest) : latest;
  if (current) {
    sub.currentPeriodStart = current.periodStart;
    sub.currentPeriodEnd = current.periodEnd;
  }
  for (const period of sub.periods) {
    const touched = Math.max(period.paidAt ?? 0, period.refunds[period.refunds.length - 1]?.refundedAt ?? 0);
    sub.updatedAt = Math.max(sub.updatedAt, touched);
  }
  const lastPending = latest && latest.status === "pending";
  // Spec: next_charge_at is "null on terminal rows and on pending_pcstore_authorization".
  if (
    (terminal || s.status === "pending_pcstore_authorization") &&
    s.next_charge_at !== undefined &&
    s.next_charge_at !== null
  ) {
    throw new ScenarioError(
      `${where}.next_charge_at: must be null or absent on a ${s.status} subscription (the service shows null there)`,
    );
  }
  if (s.next_charge_at !== undefined)
    sub.nextChargeAt = s.next_charge_at === null ? null : instant(s.next_charge_at, where);
  else if (terminal || s.status === "pending_pcstore_authorization") sub.nextChargeAt = null;
  else if (s.status === "past_due" || s.status === "awaiting_authentication" || lastPending)
    sub.nextChargeAt = clock + DAY;
  else if (!latest) sub.nextChargeAt = sub.trialEnd ?? createdAt;
  else sub.nextChargeAt = sub.currentPeriodEnd;
  // A period loaded in dunning keeps choice 7's schedule from here: its first attempt is put where its next retry
  // (after the attempts recorded) falls at next_charge_at, so a decline then waits for the following retry.
  const retryOffset = latest ? DUNNING_RETRY_OFFSETS[latest.charge.attempts - 1] : undefined;
  if (lastPending && latest && sub.nextChargeAt !== null && retryOffset !== undefined)
    latest.charge.firstAttemptAt = sub.nextChargeAt - retryOffset;
  if (terminal) {
    // Ended at the fourth decline of a failed period (its last retry), else when its current window ended.
    const lastRetry = DUNNING_RETRY_OFFSETS[DUNNING_RETRY_OFFSETS.length - 1] ?? 0;
    const fallback =
      latest?.status === "failed"
        ? Math.min(clock, (latest.charge.firstAttemptAt ?? latest.periodStart) + lastRetry)
        : Math.min(clock, sub.currentPeriodEnd);
    sub.canceledAt = s.canceled_at ? instant(s.canceled_at, where) : s.status === "canceled" ? fallback : null;
    sub.endedAt = s.ended_at ? instant(s.ended_at, where) : (sub.canceledAt ?? fallback);
  } else {
    sub.canceledAt = s.canceled_at
      ? instant(s.canceled_at, where)
      : s.cancel_at_period_end
        ? Math.min(clock, sub.currentPeriodEnd)
        : null;
  }
  sub.updatedAt = Math.max(sub.updatedAt, sub.canceledAt ?? 0);
  if (sub.updatedAt > clock) sub.updatedAt = clock;
  reschedule(ledger, sub);
}
