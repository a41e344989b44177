import { Button } from "@/app/_components/ui/button";
import { CONTROL_CLASS } from "@/app/_components/forms/control-styles";
import { cn } from "@/app/_components/cn";
import { SUBSCRIPTION_ID_EXAMPLE } from "@/lib/lookup/schemas";

/** The one search box: a GET form, so it works before any script loads and the URL can be shared. */
export function SearchForm({ defaultValue, error }: { defaultValue?: string; error?: string | null }) {
  return (
    <search aria-label="Find a subscription, player or period">
      <form action="/subscriptions" method="get" className="flex flex-col gap-1">
        <label htmlFor="lookup-q" className="text-sm font-medium text-ink">
          Subscription id, player email or period id
        </label>
        <div className="flex flex-wrap gap-2">
          <input
            id="lookup-q"
            name="q"
            type="search"
            defaultValue={defaultValue}
            maxLength={254}
            autoComplete="off"
            spellCheck={false}
            placeholder={`${SUBSCRIPTION_ID_EXAMPLE}, player@example.com or 4021`}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? "lookup-q-error" : "lookup-q-hint"}
            className={cn(CONTROL_CLASS, "h-9 max-w-xl flex-1 font-mono")}
          />
          <Button type="submit" variant="primary" className="h-9">
            Look up
          </Button>
        </div>
        {error ? (
          <p id="lookup-q-error" role="alert" className="text-xs font-medium text-danger">
            {error}
          </p>
        ) : (
          <p id="lookup-q-hint" className="text-xs text-ink-muted">
            Goes straight to the subscription, the player&apos;s subscriptions, or the billing period.
          </p>
        )}
      </form>
    </search>
  );
}
