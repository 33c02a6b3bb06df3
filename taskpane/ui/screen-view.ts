import { FieldGroup, FieldInfo, Strategy, describeIssues } from "../../src/contract";
import { MaxBidRuleResult } from "../../src/model";
import { CellInput, ColumnMapping, INPUT_FIELDS, INPUT_FIELD_NAMES, InputField, isBlank } from "../../src/inputs";
import { columnName, isInBlock, resultBlockWidth } from "../../src/sheet";
import { describeError } from "../pane-error";
import { DestinationCheck, Placement, columnsText } from "../excel/destination";
import { SheetTable } from "../excel/read-table";
import { Estimate, SEND_UNUSUAL_LABEL, ScreeningJob } from "../screen";
import { DryRunCheck, Estimated, LoanField, ScreenRun, ScreenTab } from "../screen-tab";
import { RunOffer } from "../run-offer";
import { budgetLeftFigure, usd } from "../spend";
import { PaneContext, tabDeps } from "./context";
import { byId, enable, figures, h, messageBar, say, show } from "./dom";
import { mountEnhance } from "./enhance-view";
import { outcomeMessage, progressBinding } from "./progress-view";
import { runSummaryElement } from "./run-summary-view";

/*
 * The Screen tab, drawn: the table read, the columns as recognised for the user to correct, the
 * result columns, the dry run's cost and — where the results would cover cells of the user's — the
 * question (write further right, the default, or overwrite), then the run's progress bar and Cancel.
 * What each click does is screen-tab.ts's; this file shows its state and forwards the clicks.
 */

/** The tab's elements, by what they are for. */
function screenElements() {
  return {
    read: byId("screen-read"),
    tableBox: byId("screen-table"),
    summary: byId("screen-table-summary"),
    mapping: byId("screen-mapping"),
    location: byId("screen-location"),
    strategy: byId<HTMLSelectElement>("screen-strategy"),
    fieldsSummary: byId("screen-fields-summary"),
    fields: byId("screen-fields"),
    maxBid: byId<HTMLInputElement>("screen-max-bid"),
    maxBidError: byId("screen-max-bid-error"),
    loanBox: byId<HTMLDetailsElement>("screen-loan-box"),
    loanDown: byId<HTMLInputElement>("screen-loan-down"),
    loanInterest: byId<HTMLInputElement>("screen-loan-interest"),
    loanYears: byId<HTMLInputElement>("screen-loan-years"),
    loanError: byId("screen-loan-error"),
    dryRun: byId("screen-dry-run"),
    estimateBox: byId("screen-estimate"),
    estimateList: byId("screen-estimate-list"),
    estimateNote: byId("screen-estimate-note"),
    overwrite: byId("screen-overwrite"),
    overwriteText: byId("screen-overwrite-text"),
    placeRight: byId("screen-place-right"),
    placeOver: byId("screen-place-over"),
    unusualBox: byId("screen-unusual"),
    acceptUnusual: byId<HTMLInputElement>("screen-accept-unusual"),
    run: byId("screen-run"),
    back: byId("screen-back"),
    progressBox: byId("screen-progress"),
    cancel: byId("screen-cancel"),
    message: byId("screen-message"),
  };
}

/** What the tab's handlers share: its elements, the tab they forward to, and the progress bar. */
interface ScreenView {
  el: ReturnType<typeof screenElements>;
  tab: ScreenTab;
  progress: ReturnType<typeof progressBinding>;
  /** A table was read: the enhancement section follows it. */
  tableRead(table: SheetTable): void;
}

export function mountScreen(ctx: PaneContext): void {
  const el = screenElements();
  const view: ScreenView = {
    el,
    tab: new ScreenTab(tabDeps(ctx), el.strategy.value as Strategy),
    progress: progressBinding(byId("screen-bar"), byId("screen-progress-text")),
    tableRead: mountEnhance(ctx).setTable,
  };
  wireTable(view);
  wireEstimate(view);
  wireRun(view);
}

/** Anything changed before the run: the estimate goes, and Estimate is offered once a location column is known. */
function renderInvalidated({ el, tab }: ScreenView): void {
  show(el.estimateBox, false);
  const missing = tab.missingLocation();
  el.location.textContent = missing ? `Cannot screen yet: ${missing}.` : "";
  show(el.location, missing !== undefined);
  enable(el.dryRun, !missing && tab.state.running === undefined);
}

function renderFields(view: ScreenView): void {
  const { el, tab } = view;
  const choices = tab.fieldChoices();
  if (!choices) return;
  renderFieldChoices(el.fields, choices.offered, choices.chosen, (path, on) => {
    el.fieldsSummary.textContent = `Result columns: ${tab.chooseField(path, on)} chosen, then Warnings`;
    renderInvalidated(view);
  });
  el.fieldsSummary.textContent = `Result columns: ${choices.chosen.size} chosen, then Warnings`;
}

/** Reading the table, and the settings made on it: the columns' fields, the strategy, the max-bid column, loan terms. */
function wireTable(view: ScreenView): void {
  const { el, tab } = view;
  const onMap = (column: number, field: InputField | null) => {
    tab.setColumn(column, field);
    const table = tab.state.table;
    if (table) renderMapping(el.mapping, table, tab.state.mapping, onMap);
    renderFields(view);
    renderInvalidated(view);
  };
  el.read.addEventListener("click", async () => {
    say(el.message, undefined);
    enable(el.read, false);
    try {
      const table = await tab.readTable();
      el.acceptUnusual.checked = false;
      renderSummary(el.summary, table);
      renderMapping(el.mapping, table, tab.state.mapping, onMap);
      renderFields(view);
      show(el.tableBox, true);
      view.tableRead(table);
      renderInvalidated(view);
    } catch (error) {
      say(el.message, "error", describeError(error));
    } finally {
      enable(el.read, tab.state.running === undefined);
    }
  });
  el.strategy.addEventListener("change", () => {
    tab.setStrategy(el.strategy.value as Strategy);
    renderFields(view);
    renderInvalidated(view);
  });
  // Read as it is typed, and nothing shown or hidden on blur: the blur is the press of the next
  // click, and a line appearing or going then moves Estimate from under the pointer (the click was
  // lost). The error shows when Estimate is clicked, and goes as soon as the rule reads.
  el.maxBid.addEventListener("input", () => {
    const rule = tab.setMaxBid(el.maxBid.value);
    if (!el.maxBidError.hidden) showMaxBidError(el, rule);
    renderInvalidated(view);
  });
  // As the max bid: an error line goes as soon as the terms read, and none appears on blur.
  const loan: [HTMLInputElement, LoanField][] = [
    [el.loanDown, "downPaymentPercentage"],
    [el.loanInterest, "interestRatePercentage"],
    [el.loanYears, "mortgageLength"],
  ];
  for (const [input, field] of loan) {
    if (input.value !== "") tab.setLoanTerm(field, input.value);
    input.addEventListener("input", () => {
      const issues = tab.setLoanTerm(field, input.value);
      if (!el.loanError.hidden && issues.length === 0) show(el.loanError, false);
      renderInvalidated(view);
    });
  }
}

/** The dry run: what the run would send and cost, and what of the user's is in the way. */
function wireEstimate(view: ScreenView): void {
  const { el, tab } = view;
  const dryRun = async () => {
    const checked = tab.check();
    if (checked.kind === "no-table") return;
    say(el.message, undefined);
    if (checked.kind !== "ready") return renderRefused(view, checked);
    el.loanError.textContent = "";
    show(el.loanError, false);
    enable(el.dryRun, false);
    try {
      const done = await tab.dryRun(checked);
      if (done.kind === "estimated") renderEstimated(view, done.estimated);
    } catch (error) {
      say(el.message, "error", describeError(error));
    } finally {
      enable(el.dryRun, true);
    }
  };
  el.dryRun.addEventListener("click", dryRun);
  el.acceptUnusual.addEventListener("change", () => {
    tab.setAcceptUnusual(el.acceptUnusual.checked);
    void dryRun();
  });
  el.back.addEventListener("click", () => {
    tab.invalidate();
    renderInvalidated(view);
    el.dryRun.focus();
  });
}

/** Why Estimate priced nothing, said once, where it is fixed. */
function renderRefused({ el, tab }: ScreenView, checked: Exclude<DryRunCheck, { kind: "ready" | "no-table" }>): void {
  if (checked.kind === "no-fields") return say(el.message, "error", "Choose at least one result column.");
  if (checked.kind === "bad-max-bid") {
    showMaxBidError(el, tab.state.maxBid);
    return el.maxBid.focus();
  }
  el.loanError.textContent = checked.issues.join(". ");
  show(el.loanError, true);
  el.loanBox.open = true;
  el.loanDown.focus();
}

function renderEstimated({ el }: ScreenView, e: Estimated): void {
  renderEstimate(el.estimateList, el.estimateNote, e.job, e.estimate, e.offer);
  renderOverwrite(el, e.job, e.destination);
  // Offered while the table has unusual rows (held back, or sent because the box is ticked).
  show(el.unusualBox, e.unusualRows);
  el.run.textContent =
    e.estimate.items === 0
      ? "Write the invalid rows"
      : `Screen ${e.estimate.items.toLocaleString("en-US")} rows — up to ${usd(e.estimate.estimatedCostUSD)}`;
  show(el.run, e.offer.offered);
  show(el.estimateBox, true);
  (e.offer.offered ? el.run : el.back).focus();
}

/** The run, once the estimate is confirmed, and Cancel. */
function wireRun(view: ScreenView): void {
  const { el, tab, progress } = view;
  el.run.addEventListener("click", async () => {
    const total = tab.runnable();
    if (total === undefined) return;
    say(el.message, undefined);
    show(el.estimateBox, false);
    [el.read, el.dryRun].forEach((b) => enable(b, false));
    // The table's settings cannot change a run under way: out of reach until it ends.
    el.tableBox.inert = true;
    progress.reset(total);
    show(el.progressBox, true);
    el.cancel.focus();
    const run = await tab.screen(placement(), progress.update);
    show(el.progressBox, false);
    el.tableBox.inert = false;
    [el.read, el.dryRun].forEach((b) => enable(b, true));
    if (run) renderRun(view, run);
  });
  el.cancel.addEventListener("click", () => {
    tab.cancel();
    enable(el.cancel, false);
    setTimeout(() => enable(el.cancel, true), 500);
  });
}

/** How the run ended: the outcome and where the results are, the deals' summary; or the question again. */
function renderRun({ el }: ScreenView, run: ScreenRun): void {
  if (run.kind === "ask-again") {
    renderOverwrite(el, run.estimated.job, run.estimated.destination);
    show(el.estimateBox, true);
    say(
      el.message,
      "warning",
      "Cells of yours appeared where the results would go, so nothing was sent: choose where they go, then screen again.",
    );
    el.run.focus();
  } else if (run.kind === "ran") {
    const { job, result } = run;
    const outcome = outcomeMessage(result, "screen the table");
    const where = `Results in columns ${columnName(job.blockColumn)}–${columnName(job.blockColumn + job.writeWidth - 1)} of ${job.sheetName}.`;
    say(
      el.message,
      outcome.intent,
      `${outcome.text} ${where}`,
      result.writeError !== undefined ? ` ${describeError(result.writeError, "may-bill")}` : "",
    );
    el.message.append(runSummaryElement(run.summary));
  } else say(el.message, "error", describeError(run.error, "may-bill"));
  if (run.closeError !== undefined) say(el.message, "error", describeError(run.closeError));
}

/** The user's answer to the question: further right unless they chose to overwrite. */
function placement(): Placement {
  return document.querySelector<HTMLInputElement>('input[name="screen-placement"]:checked')?.value === "overwrite"
    ? "overwrite"
    : "right";
}

function renderSummary(el: HTMLElement, table: SheetTable): void {
  const rows = table.rows.filter((r) => !r.cells.every((c) => isBlank(c))).length;
  const earlier = table.block
    ? ` Results of an earlier run in columns ${columnName(table.left + table.block.start)}–${columnName(table.left + table.block.start + table.block.width - 1)} are replaced.`
    : "";
  el.textContent = `${table.tableName ? `Table ${table.tableName}, ` : ""}${table.address}: ${rows.toLocaleString("en-US")} rows under the header in row ${table.headerRow + 1}.${earlier}`;
}

/** One select per column of the table (the earlier result block left out): what it holds, or not used. */
function renderMapping(
  root: HTMLElement,
  table: SheetTable,
  mapping: ColumnMapping,
  onChange: (column: number, field: InputField | null) => void,
): void {
  const rows: HTMLElement[] = [];
  table.headers.forEach((header, c) => {
    if (isInBlock(table.block, c)) return;
    if (isBlank(header)) return;
    const name = headerText(header);
    const id = `map-${c}`;
    const select = h("select", { id, "aria-label": `Column ${columnName(table.left + c)}, ${name}, holds` });
    select.append(h("option", { value: "" }, "Not used"));
    for (const field of INPUT_FIELD_NAMES)
      select.append(h("option", { value: field, selected: mapping[c] === field }, INPUT_FIELDS[field].label));
    if (!mapping[c]) select.value = "";
    select.addEventListener("change", () => onChange(c, (select.value || null) as InputField | null));
    rows.push(
      h(
        "div",
        { class: `mapping__row${mapping[c] ? "" : " mapping__row--unused"}` },
        h(
          "label",
          { for: id, class: "mapping__header", title: name },
          h("span", { class: "mapping__col" }, columnName(table.left + c)),
          name,
        ),
        select,
      ),
    );
  });
  root.replaceChildren(...rows);
}

/**
 * The result columns offered, by group: each group folds away (open when one of its columns is
 * chosen), says how many of its columns are chosen, and sets them all or none at once.
 */
function renderFieldChoices(
  root: HTMLElement,
  offered: readonly FieldInfo[],
  chosen: ReadonlySet<string>,
  onChange: (path: string, on: boolean) => void,
): void {
  const groups = new Map<FieldGroup, FieldInfo[]>();
  for (const f of offered) groups.set(f.group, [...(groups.get(f.group) ?? []), f]);
  root.replaceChildren(...[...groups].map(([group, fields]) => fieldGroup(group, fields, chosen, onChange)));
}

function fieldGroup(
  group: FieldGroup,
  fields: readonly FieldInfo[],
  chosen: ReadonlySet<string>,
  onChange: (path: string, on: boolean) => void,
): HTMLElement {
  const boxes = fields.map((f) => {
    const box = h("input", { type: "checkbox", value: f.path, checked: chosen.has(f.path) });
    box.addEventListener("change", () => {
      onChange(f.path, box.checked);
      count();
    });
    return { box, label: h("label", { class: "check" }, box, f.label) };
  });
  const summary = h("summary", { class: "fields__group-name" });
  const count = () => {
    summary.textContent = `${group}: ${boxes.filter((b) => b.box.checked).length} of ${boxes.length}`;
  };
  count();
  const setAll = (on: boolean) => () => {
    for (const { box } of boxes) {
      if (box.checked === on) continue;
      box.checked = on;
      onChange(box.value, on);
    }
    count();
  };
  const all = h("button", { type: "button", class: "link-button" }, "All");
  const none = h("button", { type: "button", class: "link-button" }, "None");
  all.addEventListener("click", setAll(true));
  none.addEventListener("click", setAll(false));
  all.setAttribute("aria-label", `All ${group} columns`);
  none.setAttribute("aria-label", `No ${group} columns`);
  return h(
    "details",
    { class: "fields__group", ...(boxes.some((b) => b.box.checked) ? { open: true } : {}) },
    summary,
    h("div", { class: "fields__group-actions" }, all, none),
    ...boxes.map((b) => b.label),
  );
}

function renderEstimate(list: HTMLElement, note: HTMLElement, job: ScreeningJob, e: Estimate, offer: RunOffer): void {
  figures(list, [
    ["Rows to send", e.items.toLocaleString("en-US")],
    ["Invalid rows", String(e.invalid), e.invalid > 0 ? "marked in their row, never sent" : undefined],
    ...(e.unusual > 0
      ? [
          [
            "Unusual rows",
            String(e.unusual),
            `outside the plausible ranges: not sent unless you tick "${SEND_UNUSUAL_LABEL}"`,
          ] as const,
        ]
      : []),
    ["Cached", String(e.cached), "free"],
    ["To create", String(e.toCreate)],
    ...(e.duplicates > 0 ? [["Duplicates", String(e.duplicates), "same as an earlier row: one call"] as const] : []),
    ...(e.unknownOutcome > 0
      ? [
          [
            "Unknown outcome",
            String(e.unknownOutcome),
            "sent before, outcome unknown or billed unusable: only a refresh sends them again",
          ] as const,
        ]
      : []),
    ["Estimated cost", usd(e.estimatedCostUSD), e.sandbox ? "at most; sandbox: simulated money" : "at most"],
    budgetLeftFigure(e.budgetRemainingUSD),
  ]);
  const notes: HTMLElement[] = [];
  const invalid = job.rows.flatMap((r) => (r.kind === "invalid" ? [r] : []));
  for (const r of invalid.slice(0, 5))
    notes.push(h("p", { class: "inline-error small" }, `Row ${r.sheetRow + 1}: ${describeIssues(r.issues)}`));
  if (invalid.length > 5)
    notes.push(h("p", { class: "inline-error small" }, `… and ${invalid.length - 5} more invalid rows.`));
  const unusual = job.rows.flatMap((r) => (r.kind === "unusual" ? [r] : []));
  for (const r of unusual.slice(0, 5))
    notes.push(h("p", { class: "inline-warning small" }, `Row ${r.sheetRow + 1}: ${describeIssues(r.issues)}`));
  if (unusual.length > 5)
    notes.push(h("p", { class: "inline-warning small" }, `… and ${unusual.length - 5} more unusual rows.`));
  if (!offer.offered) notes.push(messageBar("warning", h("strong", {}, offer.reason), " ", offer.advice));
  notes.push(
    h(
      "p",
      { class: "muted small" },
      `${job.fields.length + 3} result columns from ${columnName(job.blockColumn)}, on ${job.sheetName}.`,
    ),
  );
  note.replaceChildren(...notes);
}

/** The question, when the results would cover cells of the user's: where they are, and the two ways on. */
function renderOverwrite(
  el: { overwrite: HTMLElement; overwriteText: HTMLElement; placeRight: HTMLElement; placeOver: HTMLElement },
  job: ScreeningJob,
  check: DestinationCheck,
): void {
  show(el.overwrite, check.occupied > 0);
  if (check.occupied === 0 || !check.first) return;
  const cells = check.occupied === 1 ? "1 cell" : `${check.occupied.toLocaleString("en-US")} cells`;
  const block = columnsText(job.blockColumn, job.writeWidth);
  el.overwriteText.textContent = `The results would cover ${cells} of yours in ${block} (first ${check.first.address}: ${JSON.stringify(check.first.content)}).`;
  el.placeRight.textContent = `Write the results in ${columnsText(check.freeLeft, resultBlockWidth(job.fields))} instead, where nothing is overwritten`;
  el.placeOver.textContent = check.occupied === 1 ? "Overwrite that cell" : `Overwrite those ${cells}`;
  const right = el.overwrite.querySelector<HTMLInputElement>('input[value="right"]');
  if (right) right.checked = true;
}

function headerText(header: CellInput): string {
  return header instanceof Date ? header.toISOString().slice(0, 10) : String(header).trim();
}

/** The max-bid field's one error line: shown while the rule is wrong, gone once it reads. */
function showMaxBidError(el: { maxBidError: HTMLElement }, rule: MaxBidRuleResult | undefined): void {
  const error = rule?.ok === false ? `Max bid: ${rule.message}.` : "";
  el.maxBidError.textContent = error;
  show(el.maxBidError, error !== "");
}
