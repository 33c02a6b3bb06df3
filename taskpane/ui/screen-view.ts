import { RelayCallError } from "../../src/client";
import {
  FIELD_CATALOGUE,
  FieldGroup,
  FieldInfo,
  MaxBidRuleResult,
  Strategy,
  describeIssues,
  isMaxBidField,
  parseMaxBidRule,
} from "../../src/contract";
import {
  CellInput,
  ColumnMapping,
  INPUT_FIELDS,
  INPUT_FIELD_NAMES,
  InputField,
  NumberStyle,
  isBlank,
  missingLocation,
  recognizeColumns,
} from "../../src/inputs";
import { columnName, isInBlock, maskBlock, resultBlockWidth } from "../../src/sheet";
import { describeError } from "../errors";
import { DestinationCheck, Placement, checkDestination, columnsText, destinationOf } from "../excel/destination";
import { workbookNumberStyle } from "../excel/number-style";
import { SheetTable, readSelectedTable } from "../excel/read-table";
import { placeResults } from "../overwrite";
import {
  Estimate,
  LoanTerms,
  SEND_UNUSUAL_LABEL,
  ScreeningJob,
  estimate,
  planScreening,
  readLoanTerms,
  runScreening,
} from "../screen";
import { RunOffer, runOffer } from "../run-offer";
import { runSummary } from "../run-summary";
import { budgetLeftFigure, usd } from "../spend";
import { PaneContext, relayClient } from "./context";
import { byId, enable, figures, h, messageBar, say, show } from "./dom";
import { mountEnhance } from "./enhance-view";
import { outcomeMessage, progressBinding } from "./progress-view";
import { runSummaryElement } from "./run-summary-view";

/**
 * The Screen tab: read the selected table, show the columns as recognised for the user to correct,
 * pick the result columns, show the dry run's cost, and only then — on a second click — screen,
 * with a progress bar and Cancel. Where the results would cover cells of the user's, the estimate
 * asks first: write further right (the default) or overwrite them. The run is one undo step where
 * Excel supports it (ctx.undoGroup).
 */
interface State {
  table: SheetTable | undefined;
  /** How the workbook writes numbers as text, asked of Excel when the table is read. */
  numbers: NumberStyle;
  mapping: ColumnMapping;
  /** The user ticked "Also send unusual rows". */
  acceptUnusual: boolean;
  /** Result columns the user chose, by path; undefined until they change the defaults. */
  chosen: Set<string> | undefined;
  /** The max-bid column's rule as the user wrote it, read; undefined for none. */
  maxBid: MaxBidRuleResult | undefined;
  job: ScreeningJob | undefined;
  estimate: Estimate | undefined;
  /** What is in the way of the results, read with the estimate. */
  destination: DestinationCheck | undefined;
  running: AbortController | undefined;
}

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

/** What the tab's handlers share: its elements, its state, and the steps several of them take. */
interface ScreenView {
  ctx: PaneContext;
  el: ReturnType<typeof screenElements>;
  state: State;
  progress: ReturnType<typeof progressBinding>;
  /** The job the table and the settings make now; undefined before a table is read. */
  plan(): ScreeningJob | undefined;
  /** Anything changed before the run: the estimate no longer holds. */
  invalidate(): void;
  renderFields(): void;
  /** A table was read: the enhancement section follows it. */
  tableRead(table: SheetTable): void;
}

export function mountScreen(ctx: PaneContext): void {
  const el = screenElements();
  const state: State = {
    table: undefined,
    numbers: "unknown",
    acceptUnusual: false,
    mapping: [],
    chosen: undefined,
    maxBid: undefined,
    job: undefined,
    estimate: undefined,
    destination: undefined,
    running: undefined,
  };
  const view: ScreenView = {
    ctx,
    el,
    state,
    progress: progressBinding(byId("screen-bar"), byId("screen-progress-text")),
    plan: () => planOf(el, state),
    invalidate: () => invalidate(view),
    renderFields: () => renderFields(view),
    tableRead: mountEnhance(ctx).setTable,
  };
  wireTable(view);
  wireEstimate(view);
  wireRun(view);
}

function planOf(el: ScreenView["el"], state: State): ScreeningJob | undefined {
  if (!state.table) return undefined;
  const chosen = state.chosen;
  return planScreening(state.table, state.mapping, {
    strategy: el.strategy.value as Strategy,
    numbers: state.numbers,
    acceptUnusual: state.acceptUnusual,
    maxBid: state.maxBid?.ok ? state.maxBid.rule : undefined,
    loanTerms: loanTermsOf(el, state.numbers).terms,
    ...(chosen ? { fields: FIELD_CATALOGUE.filter((f) => chosen.has(f.path)) } : {}),
  });
}

function invalidate({ el, state }: ScreenView): void {
  state.job = undefined;
  state.estimate = undefined;
  state.destination = undefined;
  show(el.estimateBox, false);
  const missing = missingLocation(state.mapping);
  el.location.textContent = missing ? `Cannot screen yet: ${missing}.` : "";
  show(el.location, missing !== undefined);
  enable(el.dryRun, !missing && state.running === undefined);
}

function renderFields(view: ScreenView): void {
  const { el, state } = view;
  const job = view.plan();
  if (!job) return;
  const chosen = new Set(job.fields.filter((f) => !isMaxBidField(f)).map((f) => f.path));
  const offered = FIELD_CATALOGUE.filter((f) => !job.strategy || f.strategies.includes(job.strategy));
  renderFieldChoices(el.fields, offered, chosen, (path, on) => {
    state.chosen ??= new Set(chosen);
    if (on) state.chosen.add(path);
    else state.chosen.delete(path);
    el.fieldsSummary.textContent = `Result columns: ${state.chosen.size} chosen, then Warnings`;
    view.invalidate();
  });
  el.fieldsSummary.textContent = `Result columns: ${chosen.size} chosen, then Warnings`;
}

/** Reading the table, and the settings made on it: the columns' fields, the strategy, the max-bid column. */
function wireTable(view: ScreenView): void {
  const { ctx, el, state } = view;
  /** A column's field changed: a field is held by one column only, so another column holding it lets it go. */
  const onMap = (column: number, field: InputField | null) => {
    state.mapping = state.mapping.map((f, c) => (c === column ? field : f === field && field !== null ? null : f));
    if (state.table) renderMapping(el.mapping, state.table, state.mapping, onMap);
    view.renderFields();
    view.invalidate();
  };
  el.read.addEventListener("click", async () => {
    say(el.message, undefined);
    enable(el.read, false);
    try {
      const table = await readSelectedTable(ctx.run);
      state.numbers = await workbookNumberStyle(ctx.run);
      state.table = table;
      state.mapping = recognizeColumns(maskBlock(table.headers, table.block));
      state.chosen = undefined;
      state.acceptUnusual = false;
      el.acceptUnusual.checked = false;
      renderSummary(el.summary, table);
      renderMapping(el.mapping, table, state.mapping, onMap);
      view.renderFields();
      show(el.tableBox, true);
      view.tableRead(table);
      view.invalidate();
    } catch (error) {
      say(el.message, "error", describeError(error));
    } finally {
      enable(el.read, state.running === undefined);
    }
  });
  el.strategy.addEventListener("change", () => {
    state.chosen = undefined;
    view.renderFields();
    view.invalidate();
  });
  // Read as it is typed, and nothing shown or hidden on blur: the blur is the press of the next
  // click, and a line appearing or going then moves Estimate from under the pointer (the click was
  // lost). The error shows when Estimate is clicked, and goes as soon as the rule reads.
  el.maxBid.addEventListener("input", () => {
    const text = el.maxBid.value.trim();
    state.maxBid = text === "" ? undefined : parseMaxBidRule(text);
    if (!el.maxBidError.hidden) showMaxBidError(el, state.maxBid);
    view.invalidate();
  });
  // As the max bid: an error line goes as soon as the terms read, and none appears on blur.
  for (const input of [el.loanDown, el.loanInterest, el.loanYears])
    input.addEventListener("input", () => {
      if (!el.loanError.hidden && loanTermsOf(el, state.numbers).issues.length === 0) show(el.loanError, false);
      view.invalidate();
    });
}

/** The loan terms typed, read (readLoanTerms): the terms when all read, else what is wrong. */
function loanTermsOf(
  el: Pick<ScreenView["el"], "loanDown" | "loanInterest" | "loanYears">,
  numbers: NumberStyle,
): { terms: LoanTerms | undefined; issues: string[] } {
  const read = readLoanTerms(
    {
      downPaymentPercentage: el.loanDown.value,
      interestRatePercentage: el.loanInterest.value,
      mortgageLength: el.loanYears.value,
    },
    numbers,
  );
  return read.ok ? { terms: read.terms, issues: [] } : { terms: undefined, issues: read.issues };
}

/** The dry run: what the run would send and cost, and what of the user's is in the way. */
function wireEstimate(view: ScreenView): void {
  const { ctx, el, state } = view;
  const dryRun = async () => {
    const job = view.plan();
    if (!job) return;
    say(el.message, undefined);
    if (job.fields.length === 0) return say(el.message, "error", "Choose at least one result column.");
    // The field's own error line says what is wrong: said once, where it is fixed.
    if (state.maxBid?.ok === false) {
      showMaxBidError(el, state.maxBid);
      return el.maxBid.focus();
    }
    const loan = loanTermsOf(el, state.numbers);
    el.loanError.textContent = loan.issues.join(". ");
    show(el.loanError, loan.issues.length > 0);
    if (loan.issues.length > 0) {
      el.loanBox.open = true;
      return el.loanDown.focus();
    }
    enable(el.dryRun, false);
    try {
      const client = await relayClient(ctx);
      const answer = await estimate(client, [job]);
      ctx.setMode(answer.sandbox ? "sandbox" : "live");
      const destination = await checkDestination(ctx.run, destinationOf(job, earlierBlock(state.table)));
      Object.assign(state, { job, estimate: answer, destination });
      const offer = runOffer(answer);
      renderEstimate(el.estimateList, el.estimateNote, job, answer, offer);
      renderOverwrite(el, job, destination);
      // Offered while the table has unusual rows (held back, or sent because the box is ticked).
      show(
        el.unusualBox,
        job.rows.some((r) => r.kind === "unusual" || (r.kind === "request" && r.unusual.length > 0)),
      );
      el.run.textContent =
        answer.items === 0
          ? "Write the invalid rows"
          : `Screen ${answer.items.toLocaleString("en-US")} rows — up to ${usd(answer.estimatedCostUSD)}`;
      show(el.run, offer.offered);
      show(el.estimateBox, true);
      (offer.offered ? el.run : el.back).focus();
    } catch (error) {
      say(el.message, "error", describeError(error));
    } finally {
      enable(el.dryRun, true);
    }
  };
  el.dryRun.addEventListener("click", dryRun);
  // Confirming (or not) changes what is sent: the estimate is made again.
  el.acceptUnusual.addEventListener("change", () => {
    state.acceptUnusual = el.acceptUnusual.checked;
    void dryRun();
  });
  el.back.addEventListener("click", () => {
    view.invalidate();
    el.dryRun.focus();
  });
}

/** The run, once the estimate is confirmed, and Cancel. */
function wireRun(view: ScreenView): void {
  const { ctx, el, state, progress } = view;
  el.run.addEventListener("click", async () => {
    const { job: planned, estimate: est, destination } = state;
    if (!planned || !est || !destination || state.running || !runOffer(est).offered) return;
    const controller = new AbortController();
    state.running = controller;
    say(el.message, undefined);
    show(el.estimateBox, false);
    [el.read, el.dryRun].forEach((b) => enable(b, false));
    // The table's settings cannot change a run under way: out of reach until it ends.
    el.tableBox.inert = true;
    progress.reset(planned.rows.filter((r) => r.kind !== "blank").length);
    show(el.progressBox, true);
    el.cancel.focus();
    const group = ctx.undoGroup();
    let askAgain = false;
    try {
      // Read again just before anything is sent (overwrite.ts): cells typed since the estimate are asked about.
      const block = { job: planned, earlier: earlierBlock(state.table), shown: destination };
      const placed = await placeResults(ctx.run, [block], placement());
      if (!placed.go) {
        askAgain = true;
        state.destination = placed.now[0] ?? destination;
        renderOverwrite(el, planned, state.destination);
        show(el.estimateBox, true);
        el.run.focus();
        return say(
          el.message,
          "warning",
          "Cells of yours appeared where the results would go, so nothing was sent: choose where they go, then screen again.",
        );
      }
      const job = placed.jobs[0] ?? planned;
      const client = await relayClient(ctx);
      const deals = runSummary(job);
      const result = await runScreening({ client, run: group.run }, job, {
        signal: controller.signal,
        sandbox: est.sandbox,
        onProgress: progress.update,
        onOutcome: deals.add,
      });
      progress.update(result.progress);
      const outcome = outcomeMessage(result, "screen the table");
      const where = `Results in columns ${columnName(job.blockColumn)}–${columnName(job.blockColumn + job.writeWidth - 1)} of ${job.sheetName}.`;
      say(
        el.message,
        outcome.intent,
        `${outcome.text} ${where}`,
        result.writeError !== undefined ? ` ${describeError(result.writeError, "may-bill")}` : "",
      );
      el.message.append(runSummaryElement(deals.summary()));
    } catch (error) {
      say(el.message, "error", describeError(error, "may-bill"));
    } finally {
      await group.close().catch((error: unknown) => say(el.message, "error", describeError(error)));
      // Asked again, the estimate stands: only where the results go is in question.
      Object.assign(state, { running: undefined }, askAgain ? {} : { job: undefined, estimate: undefined });
      show(el.progressBox, false);
      el.tableBox.inert = false;
      [el.read, el.dryRun].forEach((b) => enable(b, true));
      ctx.spendChanged();
    }
  });
  el.cancel.addEventListener("click", () => {
    state.running?.abort(new RelayCallError("STR_CANCELLED", "Cancelled in the task pane."));
    enable(el.cancel, false);
    setTimeout(() => enable(el.cancel, true), 500);
  });
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

/** The earlier result block beside the table, in sheet columns: ours to replace. */
function earlierBlock(table: SheetTable | undefined): { left: number; width: number } | undefined {
  return table?.block ? { left: table.left + table.block.start, width: table.block.width } : undefined;
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
