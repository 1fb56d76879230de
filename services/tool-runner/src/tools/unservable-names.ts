/**
 * The fields a listing adds when it left out names the tools could not open (docs/security.md case 142): how
 * many, and why, never the names themselves (they may hold terminal escapes or bidi overrides). Nothing when
 * there were none, so ordinary replies stay as they were.
 */
export function unservableNamesReply(count: number): { unservable_names?: number; unservable_note?: string } {
  if (count === 0) return {};
  return {
    unservable_names: count,
    unservable_note: `${count} name(s) here are not listed: the tools cannot open them (a control or bidi character, a backslash, a reserved device name such as CON, a trailing dot or space, or a {…}).`,
  };
}
