"""Datasets: official-format loaders, the Hugging Face source, the bundled real sample, source resolution.

    from rc1.data import load_tasks
    loaded = load_tasks("gsm8k", data_dir="../shared/data")   # -> LoadedTasks(records, source_kind, ...)
"""

from rc1.data.files import DATA_FILES, read_task_file
from rc1.data.formats import BadRecord, gsm8k_calculations, gsm8k_final_answer, gsm8k_steps
from rc1.data.sources import BUNDLED_DIR, LoadedTasks, bundled_tasks, default_data_config, load_all, load_tasks, source_tags

__all__ = ["BUNDLED_DIR", "DATA_FILES", "BadRecord", "LoadedTasks", "bundled_tasks", "default_data_config",
           "gsm8k_calculations", "gsm8k_final_answer", "gsm8k_steps", "load_all", "load_tasks", "read_task_file",
           "source_tags"]
