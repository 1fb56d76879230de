/**
 * Files brought onto `zone` by drag and drop, and files pasted (from the clipboard) while the zone is shown,
 * handed to `receive`. While files are dragged over the zone it carries the class `is-drop-target`; the
 * overlay that says so is laid over the zone, so nothing else moves.
 */
export function dropZone(zone: HTMLElement, overlay: HTMLElement, receive: (files: File[]) => void): void {
  let depth = 0;
  const carriesFiles = (event: DragEvent): boolean => event.dataTransfer?.types.includes("Files") ?? false;
  const setActive = (active: boolean): void => {
    zone.classList.toggle("is-drop-target", active);
    overlay.hidden = !active;
  };
  zone.addEventListener("dragenter", (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    depth++;
    setActive(true);
  });
  zone.addEventListener("dragover", (event) => {
    if (!carriesFiles(event)) return;
    // without this the browser opens the dropped file instead of handing it to the page
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
  });
  // enter and leave fire for every child the pointer crosses: the zone is left when they balance
  zone.addEventListener("dragleave", () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) setActive(false);
  });
  zone.addEventListener("drop", (event) => {
    depth = 0;
    setActive(false);
    const files = [...(event.dataTransfer?.files ?? [])];
    if (files.length === 0) return;
    event.preventDefault();
    receive(files);
  });
  document.addEventListener("paste", (event) => {
    if (zone.hidden) return;
    const files = [...(event.clipboardData?.files ?? [])];
    if (files.length === 0) return;
    event.preventDefault();
    receive(files);
  });
}
