"""One progress bar per training run instead of transformers' printed log dicts.

transformers' Trainer adds ProgressCallback (or PrinterCallback with disable_tqdm), whose `on_log` writes every
log dict (loss, reward, kl, clip ratios, ...) to the console once per step. `use_step_bar(trainer, desc)` swaps
that callback for StepBar: a tqdm bar over the run's steps whose postfix shows the latest reward and kl. The logs
still reach MLflow unchanged (MLflowCallback and rc1's own callback receive the same `on_log` calls).
"""

from __future__ import annotations

import math


def _step_bar_class():
    from transformers.trainer_callback import ProgressCallback

    class StepBar(ProgressCallback):
        """ProgressCallback's bar, with step, reward and kl as its postfix instead of a printed dict per log; the
        only bar of the run (no prediction bar during the held-out eval)."""

        def __init__(self, desc: str = "train"):
            super().__init__()
            self.desc = desc

        def on_train_begin(self, args, state, control, **kwargs):
            from tqdm.auto import tqdm

            from rc1.core.console import bars

            # a resumed run's bar starts where it left off; without a terminal no bar (the train stage's closing line
            # says how it went)
            if state.is_world_process_zero and bars():
                self.training_bar = tqdm(total=state.max_steps, initial=state.global_step, desc=self.desc,
                                         dynamic_ncols=True)
            self.current_step = state.global_step

        def on_step_end(self, args, state, control, **kwargs):
            if self.training_bar is not None:
                super().on_step_end(args, state, control, **kwargs)
            self.current_step = state.global_step

        def on_train_end(self, args, state, control, **kwargs):
            if self.training_bar is not None:
                super().on_train_end(args, state, control, **kwargs)

        def on_prediction_step(self, args, state, control, eval_dataloader=None, **kwargs):
            return   # the held-out eval before a save opens no second bar (ProgressCallback's prediction bar)

        def on_log(self, args, state, control, logs=None, **kwargs):
            if self.training_bar is None or not logs:
                return
            shown = {"step": state.global_step}
            for key in ("reward", "kl"):
                v = logs.get(key)
                if isinstance(v, (int, float)) and math.isfinite(float(v)):
                    shown[key] = f"{float(v):.4g}"
            if len(shown) > 1:
                self.training_bar.set_postfix(shown, refresh=True)

    return StepBar


def use_step_bar(trainer, desc: str = "train"):
    """Replace the trainer's console logging callback (ProgressCallback / PrinterCallback) with a StepBar."""
    from transformers.trainer_callback import PrinterCallback, ProgressCallback

    for cls in (ProgressCallback, PrinterCallback):
        while any(type(cb) is cls for cb in trainer.callback_handler.callbacks):
            trainer.remove_callback(cls)
    bar = _step_bar_class()(desc)
    trainer.add_callback(bar)
    return bar
