// The page's colour theme, decided before anything is drawn so that a dark page
// never flashes light: the reader's choice (light or dark, kept in this
// browser), else the system's preference, followed live. A classic script, not
// a module, so that it runs while the page's <head> is read (vite.config.js
// puts it first on every page); components/theme.js is its interface.
(function () {
  var KEY = 'attention-step-by-step/theme';
  var system = window.matchMedia('(prefers-color-scheme: dark)');
  var stored = function () {
    try {
      var choice = window.localStorage.getItem(KEY);
      return choice === 'light' || choice === 'dark' ? choice : 'system';
    } catch (e) {
      return 'system'; // storage refused (a private window, a policy): follow the system
    }
  };
  var chosen = stored();
  var apply = function () {
    var theme = chosen === 'system' ? (system.matches ? 'dark' : 'light') : chosen;
    if (document.documentElement.dataset.theme === theme) return;
    document.documentElement.dataset.theme = theme;
    document.dispatchEvent(new CustomEvent('themechange', { detail: { theme: theme } }));
  };
  window.attentionTheme = {
    /** 'system', 'light' or 'dark'. */
    choice: function () {
      return chosen;
    },
    /** Applies the reader's choice and keeps it for the next visit ('system' forgets it). */
    choose: function (choice) {
      chosen = choice === 'light' || choice === 'dark' ? choice : 'system';
      try {
        if (chosen === 'system') window.localStorage.removeItem(KEY);
        else window.localStorage.setItem(KEY, chosen);
      } catch (e) {
        // applied to this page, not kept
      }
      apply();
    },
  };
  system.addEventListener('change', apply);
  window.addEventListener('storage', function (event) {
    if (event.key !== KEY) return;
    chosen = stored(); // chosen in another tab of the site
    apply();
  });
  apply();
})();
