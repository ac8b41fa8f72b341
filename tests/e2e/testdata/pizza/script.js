window.fromScript = "script.js ran";
