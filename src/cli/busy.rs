//! A spinner for commands that may work for more than a few seconds: shown on stderr,
//! only on a terminal and only once the work has lasted a second (a quick run shows
//! nothing), and cleared before the command prints its results.

use std::io::IsTerminal;
use std::thread::JoinHandle;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Shows `what` with the time elapsed, from a second after it starts until dropped.
pub struct Busy {
    bar: ProgressBar,
    /// Dropped to tell the waiting thread that the work is done.
    done: Option<crossbeam_channel::Sender<()>>,
    waiting: Option<JoinHandle<()>>,
}

impl Busy {
    pub fn start(what: &str) -> Busy {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("valid template"));
        bar.set_message(what.to_string());
        if !std::io::stderr().is_terminal() {
            return Busy {
                bar,
                done: None,
                waiting: None,
            };
        }
        let (done, wait) = crossbeam_channel::bounded::<()>(0);
        let shown = bar.clone();
        let waiting = std::thread::spawn(move || {
            if wait
                .recv_timeout(Duration::from_secs(1))
                .is_err_and(|e| e.is_timeout())
            {
                shown.set_draw_target(ProgressDrawTarget::stderr());
                shown.enable_steady_tick(Duration::from_millis(200));
            }
        });
        Busy {
            bar,
            done: Some(done),
            waiting: Some(waiting),
        }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        drop(self.done.take());
        if let Some(waiting) = self.waiting.take() {
            let _ = waiting.join();
        }
        self.bar.finish_and_clear();
    }
}
