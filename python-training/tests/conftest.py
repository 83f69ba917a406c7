import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TRAINING = HERE.parent
REPO = TRAINING.parent
sys.path.insert(0, str(TRAINING))
