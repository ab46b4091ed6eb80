#include "distbench/cli/report_page/report_page_static.h"

namespace distbench::cli {

const char* const kPageMonitorScript = R"JS(
(function () {
  'use strict';
  var status = {done: false, errors: [], warnings: [], charts: {}, resources: [], height: 0};
  function text(values) {
    return Array.prototype.map.call(values, function (v) {
      return v instanceof Error ? v.name + ': ' + v.message : String(v);
    }).join(' ');
  }
  function show() {
    var element = document.getElementById('distbench-render-status');
    if (element) {
      element.textContent = JSON.stringify(status);
      element.setAttribute('data-done', String(status.done));
    }
    var box = document.getElementById('distbench-errors');
    if (box && status.errors.length) {
      box.hidden = false;
      box.textContent = 'Some charts could not be drawn: ' + status.errors.join('; ');
    }
  }
  window.distbenchStatus = {record: status, show: show, text: text};
  window.addEventListener('error', function (event) {
    status.errors.push('uncaught ' + (event.error ? text([event.error]) : event.message));
    show();
  });
  window.addEventListener('unhandledrejection', function (event) {
    status.errors.push('unhandled rejection: ' + text([event.reason]));
    show();
  });
  var consoleError = console.error;
  var consoleWarn = console.warn;
  console.error = function () {
    status.errors.push('console.error: ' + text(arguments));
    show();
    return consoleError.apply(console, arguments);
  };
  console.warn = function () {
    status.warnings.push(text(arguments));
    show();
    return consoleWarn.apply(console, arguments);
  };
})();
)JS";

const char* const kPageDrawScript = R"JS(
(function () {
  'use strict';
  var monitor = window.distbenchStatus;
  var status = monitor.record;
  // Items of data marks only: axes, legends and titles are groups and marks
  // of other roles, and a chart that drew only those drew nothing.
  function marksIn(mark) {
    if (mark.marktype === 'group') {
      var n = 0;
      (mark.items || []).forEach(function (group) {
        (group.items || []).forEach(function (child) { n += marksIn(child); });
      });
      return n;
    }
    return mark.role === 'mark' ? (mark.items || []).length : 0;
  }
  var versions = document.getElementById('chart-library-versions');
  if (versions) {
    versions.textContent = 'Vega ' + vega.version + ', Vega-Lite ' + vegaLite.version +
        ' and vega-embed ' + vegaEmbed.version;
  }
  var data = JSON.parse(document.getElementById('distbench-report-data').textContent);
  var drawn = data.charts.map(function (chart) {
    status.charts[chart.id] = 0;
    return vegaEmbed('#' + chart.id, chart.spec,
                     {mode: 'vega-lite', actions: false, renderer: 'svg'})
        .then(function (result) {
          status.charts[chart.id] = marksIn(result.view.scenegraph().root);
        })
        .catch(function (error) {
          status.errors.push(chart.id + ': ' + monitor.text([error]));
        });
  });
  Promise.all(drawn).then(function () {
    status.resources = performance.getEntriesByType('resource').map(function (r) {
      return r.name;
    });
    // The content's height, not the window's: screenshots are cropped to it.
    status.height = Math.ceil(document.body.getBoundingClientRect().bottom + window.scrollY);
    status.done = true;
    monitor.show();
  });
})();
)JS";

}  // namespace distbench::cli
