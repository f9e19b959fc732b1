/**
 * Monthly subscription periods anchored at the subscription's start: a company created on the 31st renews on
 * the last day of shorter months. Derived from the anchor, so nothing has to roll periods forward.
 */
const addMonthsClamped = (anchor: Date, months: number): Date => {
  const year = anchor.getUTCFullYear();
  const month = anchor.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      year,
      month,
      Math.min(anchor.getUTCDate(), lastDay),
      anchor.getUTCHours(),
      anchor.getUTCMinutes(),
      anchor.getUTCSeconds(),
      anchor.getUTCMilliseconds(),
    ),
  );
};

export const subscriptionPeriod = (anchorIso: string, now: Date): { start: Date; end: Date } => {
  const anchor = new Date(anchorIso);
  if (now < anchor) return { start: anchor, end: addMonthsClamped(anchor, 1) };
  let months =
    (now.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (now.getUTCMonth() - anchor.getUTCMonth());
  if (addMonthsClamped(anchor, months) > now) months -= 1;
  return { start: addMonthsClamped(anchor, months), end: addMonthsClamped(anchor, months + 1) };
};
