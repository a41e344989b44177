"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { Field } from "@/app/_components/forms/field";
import { FormMessage } from "@/app/_components/forms/form-message";
import { Input } from "@/app/_components/forms/input";
import { RadioChoice } from "@/app/_components/forms/radio-choice";
import { Textarea } from "@/app/_components/forms/textarea";
import { Button } from "@/app/_components/ui/button";
import { ConfirmDialog, type ConfirmResult } from "@/app/_components/ui/confirm-dialog";
import type { ActionResult } from "@/lib/actions";
import { formatUsdText, formatUtcDateTime } from "@/lib/format";
import { describeCancelOutcome } from "@/lib/lookup/cancel-outcome";
import {
  ENDING_CHANGE_REFUSAL,
  PCSTORE_CARD_REFUSAL,
  priceChangeRefusal,
  unappliedPriceWarning,
} from "@/lib/lookup/price-change";
import { type Money, money, usdInputSchema } from "@/lib/money";
import { CardDialog } from "./card-dialog";
import { type CardOption, changeDialogProps, type SubscriptionSummary } from "./subscription-summary";

type ServerAction = (form: FormData) => Promise<ActionResult<unknown>>;

function toConfirm(action: ServerAction) {
  return async (form: FormData): Promise<ConfirmResult> => {
    const result = await action(form);
    return result.ok
      ? { ok: true, message: result.message }
      : {
          ok: false,
          message: result.message,
          code: result.code,
          values: result.values,
          fieldErrors: result.fieldErrors,
        };
  };
}

/** Cancel (support), price change and card change (finance), each asking before it acts and saying what will happen. */
export function SubscriptionActions({
  subscription,
  cards,
  canChange,
  canCancel,
  cancelAction,
  amountAction,
  paymentMethodAction,
}: {
  subscription: SubscriptionSummary;
  cards: CardOption[] | null;
  canChange: boolean;
  canCancel: boolean;
  cancelAction: ServerAction;
  amountAction: ServerAction;
  paymentMethodAction: ServerAction;
}) {
  const router = useRouter();
  const [done, setDone] = useState<string | null>(null);
  const onConfirmed = (result: ConfirmResult | undefined) => {
    setDone(result?.ok ? (result.message ?? "Done.") : "Done.");
    router.refresh();
  };
  // An ended subscription can be neither cancelled nor changed: no button the service could only refuse.
  if (subscription.terminal)
    return (
      <div className="flex flex-col gap-2">
        <p className="text-sm text-ink-muted">
          This subscription has ended ({subscription.status}): nothing to cancel or change.
        </p>
        <FormMessage tone="success">{done}</FormMessage>
      </div>
    );
  // A wallet-only subscription changes its payment method only to a card: with none to pick, nothing could be done.
  const noCardToAttach = subscription.walletOnly && (cards === null || cards.length === 0);
  // Set to end at its paid period's end ("retired at paid_through with no further charge"): a staged price or a new
  // card would never be used, so neither is offered.
  const ending = subscription.cancelAtPeriodEnd;
  const changeable = canChange && !ending;
  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap gap-2">
        {canCancel ? (
          <CancelDialog subscription={subscription} action={toConfirm(cancelAction)} onConfirmed={onConfirmed} />
        ) : null}
        {changeable ? (
          <PriceDialog subscription={subscription} action={toConfirm(amountAction)} onConfirmed={onConfirmed} />
        ) : null}
        {changeable && subscription.fundingRail !== "pcstore" && !noCardToAttach ? (
          <CardDialog
            subscription={subscription}
            cards={cards}
            action={toConfirm(paymentMethodAction)}
            onConfirmed={onConfirmed}
          />
        ) : null}
      </div>
      {canChange && ending ? (
        <p className="text-sm text-ink-muted">{ENDING_CHANGE_REFUSAL}</p>
      ) : canChange && subscription.fundingRail === "pcstore" ? (
        <p className="text-sm text-ink-muted">{PCSTORE_CARD_REFUSAL}</p>
      ) : canChange && noCardToAttach ? (
        <p className="text-sm text-ink-muted">
          {cards === null
            ? "This subscription is wallet only and the player's saved cards could not be listed: no card to attach."
            : "This subscription is wallet only and the player has no saved card to attach."}
        </p>
      ) : null}
      <FormMessage tone="success">{done}</FormMessage>
    </div>
  );
}

function CancelDialog({
  subscription,
  action,
  onConfirmed,
}: {
  subscription: SubscriptionSummary;
  action: (form: FormData) => Promise<ConfirmResult>;
  onConfirmed: (result: ConfirmResult | undefined) => void;
}) {
  return (
    <ConfirmDialog
      trigger={<Button variant="secondary">Cancel subscription…</Button>}
      title="Cancel this subscription?"
      description={subscription.subscriptionId}
      confirmLabel="Cancel subscription"
      pendingLabel="Canceling…"
      cancelLabel="Keep it"
      tone="danger"
      action={action}
      gameId={subscription.gameId}
      {...changeDialogProps(subscription, { onConfirmed })}
    >
      {(typed, errors) => (
        <>
          <CancelWhen subscription={subscription} typed={typed.when} />
          <Field
            label="Reason"
            hint="Up to 500 characters; stored by the service and carried on the cancel event."
            error={errors.reason}
          >
            {(control) => <Textarea {...control} name="reason" maxLength={500} defaultValue={typed.reason} />}
          </Field>
        </>
      )}
    </ConfirmDialog>
  );
}

/**
 * When the cancellation takes effect, and what the service will do then. Drawn anew each time the dialog opens, so a
 * dialog closed with "Now" chosen opens again at the default; kept as chosen when the service refused it.
 */
function CancelWhen({ subscription, typed }: { subscription: SubscriptionSummary; typed: string | undefined }) {
  const [chosen, setWhen] = useState<"period_end" | "now">(typed === "now" ? "now" : "period_end");
  const [openedEnding] = useState(subscription.cancelAtPeriodEnd);
  // Already set to end at the period's end when the dialog opened: asking for that again changes nothing (the service
  // would record a second cancellation over the first), so only ending it now is offered. Set so while the dialog was
  // open (a colleague's cancellation, which refused this one): ending it now is never chosen for the person, who asked
  // for the period's end; they choose it, or leave it as it is (the desk then sends nothing).
  const endingMeanwhile = subscription.cancelAtPeriodEnd && (!openedEnding || typed === "period_end");
  const when = subscription.cancelAtPeriodEnd && !endingMeanwhile ? "now" : chosen;
  // From the subscription's own fields: the service decides with its clock, not this browser's.
  const outcome = describeCancelOutcome(
    {
      status: subscription.status,
      paid_through: subscription.paidThrough,
      current_period_start: subscription.currentPeriodStart,
      cancel_at_period_end: subscription.cancelAtPeriodEnd,
      next_charge_at: subscription.nextChargeAt,
    },
    when,
    (iso) => formatUtcDateTime(iso) ?? iso,
  );
  return (
    <>
      {endingMeanwhile ? (
        <p className="text-sm text-ink-muted">
          Meanwhile it was set to end at the end of its paid period: nothing more is needed for that.
        </p>
      ) : null}
      {subscription.cancelAtPeriodEnd && !endingMeanwhile ? (
        <p className="text-sm text-ink-muted">
          It already ends at the end of its paid period: this ends it now instead.
          <input type="hidden" name="when" value="now" />
        </p>
      ) : (
        <RadioChoice
          legend="When"
          name="when"
          options={[
            {
              value: "period_end",
              label: endingMeanwhile
                ? "At the end of the paid period (already set: nothing is sent)"
                : "At the end of the paid period (default)",
            },
            { value: "now", label: endingMeanwhile ? "Now instead" : "Now" },
          ]}
          value={when}
          onChange={setWhen}
        />
      )}
      <div
        role="status"
        aria-label="What the service will do"
        className="rounded-md border border-line bg-subtle px-3 py-2 text-sm"
      >
        <p>{outcome.text}</p>
        {outcome.code ? (
          <p className="mt-1 text-xs text-ink-muted">
            Service code: <span className="font-mono">{outcome.code}</span>
          </p>
        ) : null}
      </div>
    </>
  );
}

function PriceDialog({
  subscription,
  action,
  onConfirmed,
}: {
  subscription: SubscriptionSummary;
  action: (form: FormData) => Promise<ConfirmResult>;
  onConfirmed: (result: ConfirmResult | undefined) => void;
}) {
  return (
    <ConfirmDialog
      trigger={<Button variant="secondary">Change price…</Button>}
      title="Change the price"
      description={`Now ${formatUsdText(subscription.amountUsd)}${
        subscription.pendingAmountUsd ? `; staged ${formatUsdText(subscription.pendingAmountUsd)}` : ""
      }`}
      confirmLabel="Stage the new price"
      pendingLabel="Saving…"
      action={(form) => {
        const price = typedPrice(String(form.get("amountUsd") ?? ""));
        const refused = price.value ? priceRefusal(price.value, subscription) : null;
        return refused
          ? Promise.resolve({
              ok: false as const,
              message: `New price ${refused}.`,
              fieldErrors: { amountUsd: refused },
            })
          : action(form);
      }}
      gameId={subscription.gameId}
      {...changeDialogProps(subscription, { onConfirmed })}
    >
      {/* Inside the dialog's form, made afresh each time it opens: a price typed before is not offered again. */}
      {(_typed, errors) => <PriceFields subscription={subscription} refusal={errors.amountUsd} />}
    </ConfirmDialog>
  );
}

/** A price as typed: the schema's reading, and its amount when it is one. */
function typedPrice(text: string) {
  const parsed = usdInputSchema.safeParse(text);
  return { parsed, value: parsed.success ? money(parsed.data) : null };
}

/**
 * What the service refuses (PCSTORE_REAUTHORIZATION_REQUIRED), or would never apply, of a new price: said on the
 * field, not sent. Null for a price it takes.
 */
function priceRefusal(value: Money, subscription: SubscriptionSummary): string | null {
  return priceChangeRefusal(value, money(subscription.amountUsd), subscription.fundingRail);
}

function PriceFields({ subscription, refusal }: { subscription: SubscriptionSummary; refusal?: string }) {
  const [amount, setAmount] = useState("");
  const { parsed, value } = typedPrice(amount);
  const current = money(subscription.amountUsd);
  const warnings: string[] = [];
  if (value) {
    if (value.equals(current))
      warnings.push("This is the current price: any staged change is cleared and nothing else changes.");
    const unapplied = unappliedPriceWarning(value, current);
    if (unapplied) warnings.push(unapplied);
  }
  const refusedIncrease = value ? priceRefusal(value, subscription) : null;
  return (
    <>
      <ul className="list-disc pl-5 text-sm text-ink-muted">
        <li>
          The new price is staged: the next successful renewal first bills the current window at the old price; no
          proration.
        </li>
        <li>Sending the current price clears a staged change.</li>
        <li>
          An increase above double the last agreed price is staged but never applied; above USD 500.00 it is not sent.
        </li>
        <li>On a pcstore subscription an increase is refused and a decrease stages.</li>
      </ul>
      <Field
        label="New price (USD)"
        error={
          amount !== "" && !parsed.success ? parsed.error.issues[0]?.message : (refusedIncrease ?? refusal ?? null)
        }
        required
      >
        {(control) => (
          <Input
            {...control}
            name="amountUsd"
            inputMode="decimal"
            autoComplete="off"
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
          />
        )}
      </Field>
      {/* The region is in the dialog before any warning, so that a warning arriving is read out; empty, it takes
          back the dialog's gap before it. */}
      <div role="status" className="empty:-mt-3">
        {warnings.length > 0 ? (
          <ul
            className={
              "list-disc rounded-md border border-warning-line bg-warning-soft py-2 pr-3 pl-7 text-sm text-warning-ink"
            }
          >
            {warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        ) : null}
      </div>
    </>
  );
}
