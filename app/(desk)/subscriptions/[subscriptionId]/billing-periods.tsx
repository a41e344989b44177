import { HeadCells } from "@/app/_components/table/columns";
import { Pager } from "@/app/_components/table/pager";
import { EmptyRow, SimpleTable } from "@/app/_components/table/table";
import { Banner } from "@/app/_components/ui/banner";
import type { Loaded } from "@/lib/lookup/load";
import type { SubscriptionAttribution } from "@/lib/service/schemas";
import { StatusFilter } from "../_components/status-filter";
import { PeriodRow } from "./period-row";

/** The Billing periods section of a subscription: one page of its periods from the service, filtered by status. */
export function BillingPeriods(props: {
  id: string;
  attribution: Loaded<SubscriptionAttribution>;
  status: string;
  statusOptions: { value: string; label: string }[];
  offset: number;
  pageSize: number;
  action: string;
  hrefFor: (offset: number) => string;
  canRefund: boolean;
}) {
  const { id, attribution, status } = props;
  return (
    <section aria-labelledby="periods" className="flex flex-col gap-2">
      <h2 id="periods" className="text-sm font-semibold text-ink">
        Billing periods
      </h2>
      {!attribution.ok ? (
        <Banner tone="danger" role="alert">
          {attribution.message}
        </Banner>
      ) : (
        <div className="rounded-lg border border-line bg-surface">
          <StatusFilter action={props.action} value={status} options={props.statusOptions} label="Period status" />
          <div className="border-t border-line">
            <SimpleTable
              nowrapHead
              caption={`Billing periods of ${id}, newest first`}
              head={
                <HeadCells
                  columns={[
                    "#",
                    "Period id",
                    "Status",
                    "Window",
                    "Paid at",
                    ["Amount (USD)", "right"],
                    ["Refunded (USD)", "right"],
                    ["Partner revenue (USD)", "right"],
                    ["Attributed (USD)", "right"],
                    "Funding",
                    "Refund",
                  ]}
                />
              }
              footer={
                <Pager
                  label="Billing period pages"
                  offset={props.offset}
                  limit={props.pageSize}
                  total={attribution.value.pagination.total_count}
                  hrefFor={props.hrefFor}
                />
              }
            >
              {attribution.value.periods.length === 0 ? (
                <EmptyRow colSpan={11}>
                  {attribution.value.pagination.total_count > 0
                    ? "No periods on this page: it is past the last one."
                    : status
                      ? "No periods with this status."
                      : "No billing periods yet."}
                </EmptyRow>
              ) : (
                attribution.value.periods.map((p) => (
                  <PeriodRow key={p.period_id} period={p} canRefund={props.canRefund} />
                ))
              )}
            </SimpleTable>
          </div>
        </div>
      )}
    </section>
  );
}
