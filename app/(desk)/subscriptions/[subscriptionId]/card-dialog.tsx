"use client";

import { Field } from "@/app/_components/forms/field";
import { Select } from "@/app/_components/forms/select";
import { Button } from "@/app/_components/ui/button";
import { ConfirmDialog, type ConfirmResult } from "@/app/_components/ui/confirm-dialog";
import { type CardOption, changeDialogProps, type SubscriptionSummary } from "./subscription-summary";

/** Finance's change of a card subscription's payment method: a saved card of the player's, or wallet only. */
export function CardDialog({
  subscription,
  cards,
  action,
  onConfirmed,
}: {
  subscription: SubscriptionSummary;
  cards: CardOption[] | null;
  action: (form: FormData) => Promise<ConfirmResult>;
  onConfirmed: (result: ConfirmResult | undefined) => void;
}) {
  return (
    <ConfirmDialog
      trigger={<Button variant="secondary">Change payment method…</Button>}
      title="Change the payment method"
      description={
        subscription.walletOnly
          ? "Now: wallet only"
          : subscription.hasPaymentMethod
            ? "Now: a card is attached"
            : "Now: no card"
      }
      confirmLabel="Change payment method"
      pendingLabel="Saving…"
      action={action}
      gameId={subscription.gameId}
      {...changeDialogProps(subscription, { onConfirmed })}
    >
      {(typed, errors) => (
        <>
          <ul className="list-disc pl-5 text-sm text-ink-muted">
            <li>The card must be this player&apos;s, in this game, and not expired.</li>
            <li>It is used from the next charge, including a pending retry in dunning.</li>
            {subscription.walletOnly ? (
              <li>This subscription is wallet only: to attach a card, also set wallet only to No (the conversion).</li>
            ) : (
              <li>Wallet only together with a card is refused.</li>
            )}
          </ul>
          <Field
            label="Card"
            hint={cards === null ? "The player's cards could not be loaded." : undefined}
            error={errors.cardId}
          >
            {(control) => (
              <Select
                {...control}
                name="cardId"
                key={typed.cardId ?? ""}
                defaultValue={typed.cardId ?? ""}
                placeholder="No card change"
                options={(cards ?? []).map((c) => ({ value: String(c.id), label: c.label }))}
              />
            )}
          </Field>
          <Field label="Wallet only" error={errors.walletOnly}>
            {(control) => (
              <Select
                {...control}
                name="walletOnly"
                key={typed.walletOnly ?? "default"}
                defaultValue={typed.walletOnly ?? (subscription.walletOnly ? "no" : "keep")}
                // Wallet only left as it is takes no card, and with none there is nothing to change: not offered.
                options={[
                  ...(subscription.walletOnly ? [] : [{ value: "keep", label: "Leave as it is" }]),
                  { value: "no", label: "No (card-funded; converts a wallet-only subscription)" },
                  // Already wallet only: made so again it would change nothing.
                  ...(subscription.walletOnly ? [] : [{ value: "yes", label: "Yes (wallet only, no card)" }]),
                ]}
              />
            )}
          </Field>
        </>
      )}
    </ConfirmDialog>
  );
}
