//===- RunPictures.h - A whole run's time and memory as SVG -----*- C++ -*-===//
//
// Pictures of whole runs, written as self-contained SVG (no script, no
// external style or font) so a report can be opened in any browser and
// checked into a review: the timeline of the critical-path analysis (when
// every step of every stage ran, the messages between stages and the
// longest path), the live memory of every stage over its schedule (what
// each buffer kind holds and where the peak is), and the scatter of a
// design-space search (every configuration's time against its memory).
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
#include "Blueprint/Estimate/Time.h"
#include "Blueprint/Workload/Lifetimes.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

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

/// A configuration the search scatter labels (the Pareto front, the best).
struct ScatterLabel {
  /// Its iteration time, the integer the rows print: the tooltip prints it
  /// through estimate::formatMilliseconds, the marker sits at its binary64
  /// seconds (estimate::secondsOf).
  estimate::Picoseconds picoseconds = 0;
  int64_t peakBytes = 0;
  /// Written next to the marker; an empty text draws the marker only (its
  /// tooltip still gives time and peak).
  std::string text;
  /// The best configuration (drawn and labelled prominently); otherwise a
  /// member of the Pareto front.
  bool best = false;
};

/// A design-space search's configurations as a scatter of iteration time
/// (x, log scale) against peak memory per GPU (y), accumulated while rows
/// stream: points fall into a fixed grid of cells, so memory does not grow
/// with the number of configurations. Cells holding a configuration that
/// fits are drawn highlighted, the others muted; the usable capacity is a
/// horizontal line.
///
/// Binning: both axes are logarithmic and cut into 40 cells per decade,
/// time in seconds and memory in GiB (2^30 bytes), at edges fixed
/// independently of the data: a time t falls in cell floor(40 log10 t),
/// cell i covering [10^(i/40), 10^((i+1)/40)) seconds (each about 5.9%
/// wide), and likewise for memory. So 1 ms to 100 s is 200 columns and
/// 1 GiB to 1 TiB about 120 rows, and the cells kept are at most those
/// occupied in the data's range, however many configurations are added.
/// The cell is found without libm: the decade by repeated multiplication by
/// ten, the cell within it from a table of the 41 edges 10^(i/40), so the
/// same input gives byte-identical SVG under every compiler. Each cell
/// counts the configurations that fit and those that do not; it is drawn
/// highlighted if any fits. A time that is not a positive finite number
/// cannot be placed and is not added; a peak below one byte is placed at
/// one byte.
class SearchScatter {
public:
  /// Adds one configuration: its iteration time, its peak memory per GPU
  /// and whether that fits the device.
  void add(double seconds, int64_t peakBytes, bool fits);

  /// The number of configurations added with a time (all drawn).
  size_t configurations() const;

  /// Writes the scatter as SVG:
  ///
  ///  - a header with `title` and "<n> configurations, <f> fit";
  ///  - x the iteration time in seconds and y the peak memory in GiB, both
  ///    on log scales spanning the occupied cells, the labels and the
  ///    capacity, rounded out to 1, 2 or 5 times a power of ten, with ticks
  ///    there (only at powers of ten across more than six decades);
  ///  - every occupied cell as one `<rect class="cell fits">` (saturated,
  ///    drawn on top) or `<rect class="cell exceeds">` (grey), the cell's
  ///    size clamped to 3 to 10 px a side, at the cell's centre, with a
  ///    tooltip of its counts and bounds (the time edges rounded to the
  ///    picosecond, at most INT64_MAX, and printed as milliseconds to 3
  ///    places by estimate::formatMilliseconds, as the labels' times are);
  ///  - unless `capacityBytes` is not positive, the capacity as a dashed
  ///    `<line class="capacity">` labelled "usable <c> GiB" (callers pass
  ///    the profile's usable capacity, MemoryProfile::usableCapacityBytes);
  ///  - every label with a positive time as a marker at its point
  ///    (placed within its cell by linear interpolation between the cell's
  ///    edges, far under a pixel from the exact log) and its text
  ///    (escaped), the best one red, larger, bold and drawn last;
  ///  - a legend at the bottom.
  ///
  /// With no configurations it writes a valid SVG saying "no configuration
  /// has a time".
  void write(llvm::raw_ostream &os, llvm::StringRef title,
             int64_t capacityBytes, llvm::ArrayRef<ScatterLabel> labels) const;

private:
  struct Counts {
    int64_t fitting = 0;
    int64_t exceeding = 0;
  };
  /// (time cell, memory cell) -> the configurations there.
  std::map<std::pair<int64_t, int64_t>, Counts> cells;
  size_t count = 0;
};

} // namespace blueprint::analysis

#endif // BLUEPRINT_ANALYSIS_RUNPICTURES_H
