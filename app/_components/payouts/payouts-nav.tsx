import Link from "next/link";
import { cn } from "@/app/_components/cn";
import { PageHeader } from "@/app/_components/ui/page-header";

const TABS = [
  { href: "/payouts", label: "Windows" },
  { href: "/recipients", label: "Recipients" },
  { href: "/payouts/liability", label: "Liability" },
] as const;

/** The payout area's own navigation: windows, recipients (ledger across months), liability as of a date. */
export function PayoutsNav({ current }: { current: (typeof TABS)[number]["href"] }) {
  return (
    <nav aria-label="Payouts" className="mb-4 border-b border-line">
      <ul className="-mb-px flex gap-4 text-sm">
        {TABS.map((tab) => (
          <li key={tab.href}>
            <Link
              href={tab.href}
              aria-current={tab.href === current ? "page" : undefined}
              className={cn(
                "inline-block border-b-2 px-1 pb-2 font-medium",
                tab.href === current ? "border-accent text-ink" : "border-transparent text-ink-muted hover:text-ink",
              )}
            >
              {tab.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The head of a page of the payout area: its title and description, then the area's tabs. */
export function PayoutsHeader({
  title,
  description,
  current,
  actions,
}: {
  title: string;
  description: string;
  current: (typeof TABS)[number]["href"];
  actions?: React.ReactNode;
}) {
  return (
    <>
      <PageHeader title={title} description={description} actions={actions} />
      <PayoutsNav current={current} />
    </>
  );
}
