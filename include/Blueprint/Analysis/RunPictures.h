//===- RunPictures.h - A whole run's time and memory as SVG -----*- C++ -*-===//
//
// Two pictures of one whole run, written as self-contained SVG (no script,
// no external style or font) so a report can be opened in any browser and
// checked into a review: the timeline of the critical-path analysis (when
// every step of every stage ran, the messages between stages and the
// longest path) and the live memory of every stage over its schedule (what
// each buffer kind holds and where the peak is).
//
// The output is a pure function of the input: coordinates and numbers are
// written with fixed-precision formatting, every collection is walked in
// index order, and nothing depends on hashing or on the evaluation order of
// function arguments, so the same input gives byte-identical SVG under every
// compiler. Labels are escaped for XML.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_ANALYSIS_RUNPICTURES_H
#define BLUEPRINT_ANALYSIS_RUNPICTURES_H

#include "Blueprint/Analysis/CriticalPath.h"
#include "Blueprint/Workload/Lifetimes.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

namespace blueprint::analysis {

/// Writes the timeline of `report` (the timing of `graph`) as a Gantt chart:
///
///  - a header with `title` and "iteration <t> ms, exposed communication
///    <c> ms", so the two numbers a schedule is judged by are read first;
///  - one row per pipeline stage, labelled "stage N" on the left and with
///    its busy and bubble time on the right; time runs along the x axis,
///    from 0 to the iteration time, with ticks labelled in milliseconds at
///    a 1, 2 or 5 times a power of ten step;
///  - every step whose timing has a nonzero duration (compute, stage work,
///    collectives; sends and receives take no stage time) as one
///    `<rect class="step">` from its start to its end, coloured by what it
///    does (forward, backward, input_grad, weight_grad, step / stage work,
///    collective, and for inference prefill and decode), its micro-batch
///    number written inside when it fits, and a `<title>` child (a tooltip)
///    with its label, start and end. A stage with more than 2000 steps is
///    still drawn step by step but without the micro-batch numbers, which
///    would be unreadable and only grow the file;
///  - every message as an arrow (`<line class="message">` with an arrow
///    marker): a send is paired with the receive of the same channel (in
///    stage and step order when a channel carries several), and the arrow
///    runs from the send's time on the sender's row to the receive's end on
///    the receiver's row, so a receive that waited shows where its message
///    came from;
///  - the critical path (report.path) highlighted: its steps with a thick
///    dark outline (class "step critical") and its transfers as red arrows
///    (class "message critical"), because that is the chain any speed-up
///    has to shorten;
///  - a legend of the colours at the bottom.
void writeTimelineSVG(const RunGraph &graph, const CriticalPathReport &report,
                      llvm::StringRef title, llvm::raw_ostream &os);

/// Writes the live memory of every stage as one panel per stage (stacked
/// vertically, titled "stage N", in the order of `memory`):
///
///  - x is the position in the stage's schedule (each position a unit
///    wide, live bytes constant across it), y the live bytes, with y ticks
///    at round binary sizes labelled in B, KiB, MiB, GiB or TiB;
///  - the live bytes of each buffer kind (persistent, stash, temporary,
///    communication, and boundary if any) as stacked step-shaped areas, so
///    what the peak is made of reads off the picture, with the total as an
///    outline on top;
///  - the peak as a dashed line and a dot at its first position, labelled
///    "peak <bytes> bytes (<binary size>) at position <p>", with a tooltip
///    giving the peak by cause and the largest buffers live there (names
///    from the stage's entry in `buffers`, matched by stage number);
///  - a legend of the kinds at the bottom.
void writeMemorySVG(llvm::ArrayRef<workload::StageBuffers> buffers,
                    llvm::ArrayRef<workload::StageMemory> memory,
                    llvm::StringRef title, llvm::raw_ostream &os);

} // namespace blueprint::analysis

#endif // BLUEPRINT_ANALYSIS_RUNPICTURES_H
