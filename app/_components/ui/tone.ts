export type Tone = "neutral" | "info" | "success" | "warning" | "danger";

/** Soft background, border and text for a tone; each pair meets 4.5:1. */
export const TONE_SOFT: Record<Tone, string> = {
  neutral: "bg-subtle border-line text-ink",
  info: "bg-info-soft border-info-line text-info-ink",
  success: "bg-success-soft border-success-line text-success-ink",
  warning: "bg-warning-soft border-warning-line text-warning-ink",
  danger: "bg-danger-soft border-danger-line text-danger-ink",
};
